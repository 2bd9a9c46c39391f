// The MCP clients `harness init` registers the server in: each one's config file, its format and the
// key its servers sit under, as each client documents them. One entry per client.
import { join } from 'node:path';

/** The clients `--client` names. */
export const CLIENT_IDS = ['claude-code', 'codex', 'cursor', 'vscode', 'gemini', 'claude-desktop'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

/** The name every client's entry has. */
export const SERVER_NAME = 'harness';

/** Where the files are looked for: the project, the home directory (from HOME) and the platform. */
export interface ClientContext {
  readonly projectDir: string;
  readonly home: string;
  readonly platform: NodeJS.Platform;
  readonly env: NodeJS.ProcessEnv;
}

/** One MCP client: where its config lives and how our entry looks there. */
export interface ClientSpec {
  readonly id: ClientId;
  /** The product's name, for a person. */
  readonly name: string;
  readonly format: 'json' | 'toml';
  /** The key the servers sit under: `mcpServers`, `servers` or `mcp_servers`. */
  readonly key: string;
  /** `project`: the file belongs to the repository; `user`: to the person, for every project. */
  readonly scope: 'project' | 'user';
  readonly file: (ctx: ClientContext) => string;
  /**
   * Whether the client starts a stdio server in the project it runs in (its own working directory,
   * no `cwd` set), so `harness serve` with no path finds the project there. docs/init.md, "Entries
   * without paths", says how each was checked; a client not known to do so is given the paths.
   */
  readonly startsInProject: boolean;
  /** The entry for a server started as `command args…`. */
  readonly entry: (command: string, args: readonly string[], ctx: ClientContext) => Record<string, unknown>;
}

const stdio = (command: string, args: readonly string[]) => ({ command, args: [...args] });

/**
 * Codex starts a server with only a few variables of its own environment (HOME, PATH, USER, …):
 * a serve it starts would not see XDG_DATA_HOME, and would choose another instance than the
 * commands typed in a shell that has it. `env_vars` names the ones it passes on as well.
 */
const codexStdio = (command: string, args: readonly string[], ctx: ClientContext) => ({
  command,
  args: [...args],
  ...(ctx.env.XDG_DATA_HOME ? { env_vars: ['XDG_DATA_HOME'] } : {}),
});

/** Every client, in the order `--help` lists them. */
export const CLIENTS: readonly ClientSpec[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    format: 'json',
    key: 'mcpServers',
    scope: 'project',
    file: (ctx) => join(ctx.projectDir, '.mcp.json'),
    startsInProject: true,
    entry: stdio,
  },
  {
    id: 'codex',
    name: 'Codex CLI',
    format: 'toml',
    key: 'mcp_servers',
    scope: 'user',
    // Codex reads CODEX_HOME when it is set, else ~/.codex.
    file: (ctx) => join(ctx.env.CODEX_HOME || join(ctx.home, '.codex'), 'config.toml'),
    startsInProject: true,
    entry: codexStdio,
  },
  {
    id: 'cursor',
    name: 'Cursor',
    format: 'json',
    key: 'mcpServers',
    scope: 'project',
    file: (ctx) => join(ctx.projectDir, '.cursor', 'mcp.json'),
    startsInProject: false,
    entry: stdio,
  },
  {
    id: 'vscode',
    name: 'VS Code',
    format: 'json',
    key: 'servers',
    scope: 'project',
    file: (ctx) => join(ctx.projectDir, '.vscode', 'mcp.json'),
    startsInProject: false,
    entry: (command, args) => ({ type: 'stdio', command, args: [...args] }),
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    format: 'json',
    key: 'mcpServers',
    scope: 'project',
    file: (ctx) => join(ctx.projectDir, '.gemini', 'settings.json'),
    startsInProject: true,
    entry: stdio,
  },
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    format: 'json',
    key: 'mcpServers',
    scope: 'user',
    file: claudeDesktopConfig,
    startsInProject: false,
    entry: stdio,
  },
];

/** Claude Desktop's config: per platform, as its documentation places it. */
function claudeDesktopConfig(ctx: ClientContext): string {
  const name = 'claude_desktop_config.json';
  if (ctx.platform === 'darwin') return join(ctx.home, 'Library', 'Application Support', 'Claude', name);
  if (ctx.platform === 'win32' && ctx.env.APPDATA) return join(ctx.env.APPDATA, 'Claude', name);
  return join(ctx.home, '.config', 'Claude', name);
}

/** The client named `id`. */
export function clientById(id: ClientId): ClientSpec {
  return CLIENTS.find((c) => c.id === id)!;
}
