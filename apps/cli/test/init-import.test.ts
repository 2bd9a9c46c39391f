// `harness init --import` end to end, through the real built bin: a repository whose .mcp.json holds
// two servers (one with a token in its env), whose .cursor/mcp.json and .codex/config.toml hold one
// each, and a HOME whose ~/.codex/config.toml holds settings and an entry it cannot map. What the
// workspace and credentials.json hold afterwards, that no secret is anywhere else, what the clients'
// configs keep, and that --dry-run writes nothing and --undo restores every byte.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { tempDir } from '@harness/test-utils';
import { loadWorkspace } from '@harness/workspace';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ImportSource, planImport } from '../src/init/import';
import { removeJsonEntries } from '../src/init/merge-json';
import { type CliRun, pathWithout, runCli, sandbox } from './helpers';

const TOKEN = 'ghp_importTestToken0123456789';
const API_KEY = 'key-docs-abcdef987654';
const BEARER = 'Bearer remote-secret-555';

const MCP_JSON = `{
  // servers of this repository
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "${TOKEN}" }
    },
    "notes-db": { "command": "node", "args": ["/opt/notes/server.mjs", "--stdio"] }
  },
  "enableAllProjectMcpServers": false
}
`;

const CURSOR_JSON = `{
  "mcpServers": {
    "remote": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "${BEARER}" } }
  }
}
`;

const PROJECT_CODEX = `# this project's Codex settings
approval_policy = "on-request"

[mcp_servers.docs]
command = "docs-server"
args = ["--stdio"]
env = { DOCS_API_KEY = "${API_KEY}" }
`;

const USER_CODEX = `# Codex configuration
model = "o4-mini"

[mcp_servers.legacy]
command = "legacy-server --stdio"
`;

/** Every file under each of `dirs` (`.git` left out), with its bytes. */
function snapshot(...dirs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (name === '.git') continue;
      if (statSync(path).isDirectory()) walk(path);
      else out[path] = readFileSync(path, 'latin1');
    }
  };
  for (const dir of dirs) if (existsSync(dir)) walk(dir);
  return out;
}

const secrets = [TOKEN, API_KEY, BEARER, 'remote-secret-555'];
const holdsSecret = (text: string) => secrets.some((s) => text.includes(s));

describe('harness init --import in a repository whose clients already start MCP servers', () => {
  const box = sandbox();
  const project = join(box.root, 'project');
  const workspace = join(project, '.harness', 'workspace.yaml');
  const noHarness = pathWithout(join(box.root, 'path'), ['harness']);
  const init = (...args: string[]): Promise<CliRun> =>
    runCli(['init', project, ...args], { home: box.home, env: { PATH: noHarness } });
  let before: Record<string, string> = {};
  let imported: CliRun;

  beforeAll(async () => {
    mkdirSync(join(project, '.cursor'), { recursive: true });
    mkdirSync(join(project, '.codex'), { recursive: true });
    mkdirSync(join(box.home, '.codex'), { recursive: true });
    execFileSync('git', ['init', '-q', '-b', 'main'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '' },
    });
    writeFileSync(join(project, '.mcp.json'), MCP_JSON);
    writeFileSync(join(project, '.cursor', 'mcp.json'), CURSOR_JSON);
    writeFileSync(join(project, '.codex', 'config.toml'), PROJECT_CODEX);
    writeFileSync(join(box.home, '.codex', 'config.toml'), USER_CODEX);
    before = snapshot(project, box.home);
  });
  afterAll(() => box.cleanup());

  it('shows every diff with the secrets masked under --dry-run, and changes no byte of any file', async () => {
    const r = await init('--import', '--dry-run');
    expect(r.code, r.stderr).toBe(0);
    expect(holdsSecret(r.stdout + r.stderr)).toBe(false);
    expect(r.stdout).toContain('--- a/.mcp.json\n+++ b/.mcp.json\n');
    expect(r.stdout).toContain('-      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "********" }');
    expect(r.stdout).toContain('--- a/.codex/config.toml\n+++ b/.codex/config.toml\n');
    expect(r.stdout).toContain('+  "github_github_personal_access_token": "********"');
    expect(r.stdout).toContain('dry run: nothing written');
    expect(snapshot(project, box.home)).toEqual(before);
  });

  it('moves the four servers into the workspace, granted to coder, their secrets into credentials.json alone', async () => {
    imported = await init('--import');
    expect(imported.code, imported.stderr).toBe(0);
    expect(holdsSecret(imported.stdout + imported.stderr)).toBe(false);
    expect(imported.stdout).toMatch(/not imported: legacy .*command is a shell line/);
    // None of the four starts here (no npx, node on PATH, no such program, no network): each stays,
    // nothing of it accepted, with the way to do it later.
    for (const id of ['docs', 'github', 'notes-db', 'remote'])
      expect(imported.stdout).toContain(
        `its entry stays in the workspace, and nothing of it is accepted: see why with harness servers logs ${id}, then, once it starts, harness servers review ${id} and harness servers accept ${id} --all`,
      );

    const loaded = await loadWorkspace({ file: workspace }, { probe: false });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const servers = loaded.workspace.servers;
    expect(servers.map((s) => s.id).sort()).toEqual(['docs', 'github', 'notes-db', 'remote']);
    const github = servers.find((s) => s.id === 'github');
    expect(github?.transport).toMatchObject({
      kind: 'stdio',
      command: ['npx', '-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: '{{credential.github_github_personal_access_token}}' },
    });
    expect(github?.credentials).toEqual(['github_github_personal_access_token']);
    expect(servers.find((s) => s.id === 'remote')?.transport).toMatchObject({
      kind: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: '{{credential.remote_authorization}}' },
    });
    const text = readFileSync(workspace, 'utf8');
    for (const id of ['docs', 'github', 'notes-db', 'remote'])
      expect(text).toContain(`      - server:${id} `);

    const credentialsFile = readdirSync(join(box.home, '.local', 'share', 'harness'))
      .map((d) => join(box.home, '.local', 'share', 'harness', d, 'credentials.json'))
      .find((f) => existsSync(f));
    expect(credentialsFile).toBeDefined();
    const file = credentialsFile as string;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      github_github_personal_access_token: TOKEN,
      remote_authorization: BEARER,
      docs_docs_api_key: API_KEY,
    });

    // Every file the run wrote or changed: none but credentials.json and the backups (0600) holds a secret.
    const after = snapshot(project, box.home);
    const touched = Object.keys(after).filter((path) => after[path] !== before[path]);
    expect(touched.length).toBeGreaterThan(4);
    for (const path of touched) {
      if (path === file) continue;
      if (holdsSecret(after[path] ?? '')) {
        expect(path).toContain(join('.local', 'state', 'harness', 'init', 'undo'));
        expect(statSync(path).mode & 0o777).toBe(0o600);
      }
    }
  });

  it("leaves in each client's config only harness and what else it held", () => {
    const mcp = parseJsonc(readFileSync(join(project, '.mcp.json'), 'utf8'));
    expect(Object.keys(mcp.mcpServers)).toEqual(['harness']);
    expect(mcp.enableAllProjectMcpServers).toBe(false);
    expect(readFileSync(join(project, '.mcp.json'), 'utf8')).toContain('// servers of this repository');
    const cursor = parseJsonc(readFileSync(join(project, '.cursor', 'mcp.json'), 'utf8'));
    expect(Object.keys(cursor.mcpServers)).toEqual(['harness']);
    const projectCodex = parseToml(readFileSync(join(project, '.codex', 'config.toml'), 'utf8'));
    expect(projectCodex).toEqual({ approval_policy: 'on-request', mcp_servers: {} });
    const userCodex = parseToml(readFileSync(join(box.home, '.codex', 'config.toml'), 'utf8')) as {
      model: string;
      mcp_servers: Record<string, unknown>;
    };
    expect(userCodex.model).toBe('o4-mini');
    expect(Object.keys(userCodex.mcp_servers).sort()).toEqual(['harness', 'legacy']);
  });

  it('changes nothing on a second run: the clients hold nothing left to import', async () => {
    const now = snapshot(project, box.home);
    const r = await init('--import');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('import: no MCP server to import');
    expect(snapshot(project, box.home)).toEqual(now);
  });

  it('restores nothing with --undo while a file the import wrote has changed since, naming it', async () => {
    const mcp = join(project, '.mcp.json');
    const written = readFileSync(mcp, 'utf8');
    const now = snapshot(project, box.home);
    writeFileSync(mcp, `${written}\n`);
    const r = await runCli(['init', project, '--undo'], { home: box.home });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`nothing restored: ${mcp} changed since harness init --import wrote it`);
    writeFileSync(mcp, written);
    expect(snapshot(project, box.home)).toEqual(now);
  });

  it('restores every byte of every file the import changed with --undo, and removes those it created', async () => {
    const r = await runCli(['init', project, '--undo'], { home: box.home });
    expect(r.code, r.stderr).toBe(0);
    // The instance the import created to keep the accepted definitions stays (its store and audit
    // chain, the record of its key): every other file is as it was, and credentials.json is gone.
    const store = [
      join(box.home, '.local', 'share', 'harness'),
      join(box.home, '.config', 'harness', 'audit-keys'),
      join(box.home, '.local', 'state', 'harness', 'instances'),
    ];
    const restored = Object.fromEntries(
      Object.entries(snapshot(project, box.home)).filter(
        ([path]) => path in before || !store.some((dir) => path.startsWith(dir)),
      ),
    );
    expect(restored).toEqual(before);
    expect(Object.keys(snapshot(store[0] as string)).filter((f) => f.endsWith('credentials.json'))).toEqual(
      [],
    );
    expect(existsSync(join(project, '.harness'))).toBe(false);
    const again = await runCli(['init', project, '--undo'], { home: box.home });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('nothing to undo');
  });
});

describe('planImport', () => {
  const dir = tempDir('init-import-');
  afterAll(() => dir.cleanup());
  const source = (name: string, text: string): ImportSource => {
    const file = join(dir.path, `${name}.json`);
    writeFileSync(file, text);
    return { name, format: 'json', key: 'mcpServers', file, client: 'claude-code' };
  };

  it('leaves SSE, expanded values and unknown keys where they are, each with the reason', () => {
    const plan = planImport(
      [
        source(
          'skips',
          JSON.stringify({
            mcpServers: {
              old: { type: 'sse', url: 'https://x.example/sse' },
              expands: { command: 'srv', env: { TOKEN: `\${GITHUB_TOKEN}` } },
              placed: { command: 'srv', cwd: '/tmp' },
              harness: { command: 'harness', args: ['serve'] },
            },
          }),
        ),
      ],
      new Set(),
      {},
    );
    expect(plan.servers).toEqual([]);
    expect(plan.removals.size).toBe(0);
    expect(plan.notes.map((n) => n.split(':')[1]?.trim().split(' ')[0])).toEqual([
      'old',
      'expands',
      'placed',
    ]);
    expect(plan.notes[0]).toContain('is not streamable HTTP');
    expect(plan.notes[1]).toContain('which the client expands and harness does not');
    expect(plan.notes[2]).toContain('it sets cwd');
  });

  it('leaves an entry passing a secret in its argv or URL, or a URL harness refuses, where it is', () => {
    const plan = planImport(
      [
        source(
          'argv',
          JSON.stringify({
            mcpServers: {
              flag: { command: 'srv', args: ['--api-key=abc123'] },
              query: { url: 'https://x.example/mcp?api_key=abc123' },
              user: { url: 'https://me:pw@x.example/mcp' },
              plain: { url: 'http://x.example/mcp' },
              path: { command: 'srv', args: ['--path', '/data'] },
            },
          }),
        ),
      ],
      new Set(),
      {},
    );
    expect(plan.servers.map((s) => s.id)).toEqual(['path']);
    expect(plan.notes.join('\n')).not.toContain('abc123');
    expect(plan.notes.map((n) => n.split(': ').slice(2).join(': '))).toEqual([
      'argument --api-key passes a secret on the command line, where harness never puts one (pass it through env instead); it stays where it is',
      'the url carries api_key in its query, which harness never writes into the workspace (use a header); it stays where it is',
      'the url carries a user and password, which harness never writes into the workspace (use a header); it stays where it is',
      'the url is http:, and harness reaches a server only over https: (or http: on loopback); it stays where it is',
    ]);
  });

  it('keeps a credential already held with another value, naming the new one beside it', () => {
    const plan = planImport(
      [source('held', JSON.stringify({ mcpServers: { gh: { command: 'srv', env: { TOKEN: 'new' } } } }))],
      new Set(),
      { gh_token: 'old' },
    );
    expect([...plan.credentials]).toEqual([['gh_token_2', 'new']]);
    expect(plan.notes).toEqual([
      'credentials.json already holds gh_token with another value, kept as it is; this one is gh_token_2',
    ]);
    expect(plan.notes.join('\n')).not.toContain('new');
  });

  it('takes the same server from two clients as one, and renames one whose id a pack uses', () => {
    const entry = { command: 'srv', args: ['--stdio'], env: { API_KEY: 'k' } };
    const plan = planImport(
      [
        source('a', JSON.stringify({ mcpServers: { same: entry, git: { command: 'g' } } })),
        source('b', JSON.stringify({ mcpServers: { same: entry } })),
      ],
      new Set(['git']),
      {},
    );
    expect(plan.servers.map((s) => [s.id, s.from.length])).toEqual([
      ['same', 2],
      ['git-2', 1],
    ]);
    expect([...plan.removals.values()].map((r) => r.names)).toEqual([['same', 'git'], ['same']]);
  });
});

describe('removeJsonEntries', () => {
  it('takes an entry on lines of its own away whole, its end-of-line comment with it', () => {
    const text = [
      '// vscode',
      '{',
      '  "servers": {',
      '    "fs": { "command": "fs-server" }, // goes',
      '    // stays',
      '    "other": { "command": "other" } // stays too',
      '  },',
      '  "inputs": []',
      '}',
      '',
    ].join('\n');
    expect(removeJsonEntries(text, 'servers', ['fs'])).toBe(
      [
        '// vscode',
        '{',
        '  "servers": {',
        '    // stays',
        '    "other": { "command": "other" } // stays too',
        '  },',
        '  "inputs": []',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('takes the comma before the last entry away with it, and empties an object it leaves empty', () => {
    const text =
      '{\n  "mcpServers": {\n    "a": {\n      "command": "a"\n    },\n    "b": { "command": "b" }\n  }\n}\n';
    expect(removeJsonEntries(text, 'mcpServers', ['b'])).toBe(
      '{\n  "mcpServers": {\n    "a": {\n      "command": "a"\n    }\n  }\n}\n',
    );
    expect(removeJsonEntries(text, 'mcpServers', ['a', 'b'])).toBe('{\n  "mcpServers": {\n  }\n}\n');
  });

  it('removes an entry sharing its line with others through the JSON edit', () => {
    const text = '{ "mcpServers": { "a": { "command": "a" }, "b": { "command": "b" } } }\n';
    expect(JSON.parse(removeJsonEntries(text, 'mcpServers', ['a']))).toEqual({
      mcpServers: { b: { command: 'b' } },
    });
  });
});
