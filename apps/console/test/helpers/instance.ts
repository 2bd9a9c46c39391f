// A temp instance over a copy of the tests' workspace, and `harness serve` on it driven by the real
// MCP SDK client (the agent's side of an approval).
import { cpSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultOutcome } from '@harness/commands/mcp';
import { initInstance } from '@harness/host';
import { repoRoot, tempDir } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = dirname(fileURLToPath(import.meta.url));
export const harnessBin = join(repoRoot, 'apps', 'cli', 'dist', 'harness.js');

/** A temp directory with a copy of the workspace, an instance on it, and a HOME. */
export interface TestInstance {
  root: string;
  instanceDir: string;
  workspaceFile: string;
  home: string;
  /** data/notes.txt of the workspace copy, '' while absent. */
  notes(): string;
  cleanup(): void;
}

export async function makeInstance(): Promise<TestInstance> {
  const dir = tempDir('harness-console-');
  const ws = join(dir.path, 'workspace');
  cpSync(join(here, '..', 'fixtures', 'workspace'), ws, { recursive: true });
  const instanceDir = join(dir.path, 'instance');
  await initInstance(instanceDir, join(ws, 'workspace.yaml'), { serves: { agent: 'tester' } });
  return {
    root: dir.path,
    instanceDir,
    workspaceFile: join(ws, 'workspace.yaml'),
    home: join(dir.path, 'home'),
    notes: () => {
      try {
        return readFileSync(join(ws, 'data', 'notes.txt'), 'utf8');
      } catch {
        return '';
      }
    },
    cleanup: dir.cleanup,
  };
}

/**
 * The whole typed outcome of an MCP tool call: a call tool's under `_meta`, else its
 * `structuredContent`, else the JSON of its text.
 */
export function structured(result: unknown): Record<string, unknown> {
  const r = result as {
    structuredContent?: Record<string, unknown>;
    content?: { text?: string }[];
    _meta?: Record<string, unknown>;
  };
  const outcome = resultOutcome(r) as Record<string, unknown> | undefined;
  if (outcome) return outcome;
  return JSON.parse(r.content?.[0]?.text ?? '{}') as Record<string, unknown>;
}

/** `harness serve --instance <dir>` as the agent's MCP server, with the real SDK client. */
export async function serveAgent(t: TestInstance): Promise<{
  client: Client;
  call: (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
  stderr: () => string;
  close: () => Promise<void>;
}> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [harnessBin, 'serve', '--instance', t.instanceDir],
    env: { PATH: process.env.PATH ?? '', HOME: t.home, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (c: Buffer) => {
    log += c.toString('utf8');
  });
  const client = new Client({ name: 'harness-console-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    call: async (tool, args) => structured(await client.callTool({ name: tool, arguments: args })),
    stderr: () => log,
    close: () => client.close(),
  };
}
