// Shared by the server benchmarks: the pinned real MCP servers from npm (installed once into the
// cache the tests use, never a dependency), a workspace that governs them, and `harness serve` on it.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { installServer, type PinnedServer } from '@harness/test-utils';
import { bin } from './fixture';

/** The entry file of each pin, or exits the benchmark (status 0) with a note when one cannot be installed. */
export async function requireServers(name: string, pins: readonly PinnedServer[]): Promise<string[]> {
  const installed = await Promise.all(pins.map((p) => installServer(p)));
  const entries: string[] = [];
  for (const [i, r] of installed.entries()) {
    if (!r.ok) {
      process.stdout.write(`${name} skipped: ${pins[i]?.name} could not be installed: ${r.reason}\n`);
      process.exit(0);
    }
    entries.push(r.entry);
  }
  return entries;
}

/** One `mcp_servers` entry: a stdio server started by this Node with `args`, and its extra YAML lines. */
export interface BenchServer {
  readonly id: string;
  readonly args: readonly string[];
  /** YAML lines under the entry (each starting with four spaces), e.g. a `tools:` block. */
  readonly extra?: string;
}

/** A workspace of `servers`, every one granted to the agent `demo`. */
export function serversWorkspace(servers: readonly BenchServer[]): string {
  const node = JSON.stringify(process.execPath);
  const entries = servers.map(
    (s) =>
      `  - id: ${s.id}\n    transport: { command: [${[node, ...s.args.map((a) => JSON.stringify(a))].join(', ')}] }\n${s.extra ?? ''}`,
  );
  return `version: 1
mcp_servers:
${entries.join('')}agents:
  - id: demo
    scopes: []
    grants: [${servers.map((s) => `server:${s.id}`).join(', ')}]
`;
}

/**
 * Accepts every tool each server lists, as a person does before its tools are served
 * (`harness servers accept <id> --all`; docs/servers.md, "Review").
 */
export function acceptServers(
  dir: { root: string; workspace: string; instance: string },
  servers: readonly { readonly id: string }[],
): void {
  for (const s of servers) {
    execFileSync(
      process.execPath,
      [
        bin,
        'servers',
        'accept',
        s.id,
        '--all',
        '--workspace',
        dir.workspace,
        '--instance',
        dir.instance,
        '--agent',
        'demo',
      ],
      { env: { PATH: process.env.PATH ?? '', HOME: join(dir.root, 'home'), NO_COLOR: '1' }, stdio: 'ignore' },
    );
  }
}
