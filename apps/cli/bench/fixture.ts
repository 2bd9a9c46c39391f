// Shared by the serve benchmarks: a workspace whose commands cost nothing (`true`), `harness serve`
// started on it with the real MCP SDK client over stdio or streamable HTTP, and the honest anchors
// (a piped, detached spawn of `true` that reads both pipes; a plain SDK server's round trip).

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultOutcome } from '@harness/commands/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = dirname(fileURLToPath(import.meta.url));
export const bin = join(here, '..', 'dist', 'harness.js');
/** A plain MCP SDK server with one tool: the floor of an MCP round trip. */
export const plainServer = join(here, 'plain-server.mjs');
/** The floor of serve-overhead: a plain SDK server whose one tool runs a program (spawn-server.mjs). */
export const spawnServer = join(here, 'spawn-server.mjs');

/** Exits the benchmark (status 0) with a note when the bin was not built. */
export function requireBin(name: string): void {
  if (existsSync(bin)) return;
  process.stdout.write(`${name} skipped: ${bin} is missing; run pnpm build first\n`);
  process.exit(0);
}

// Two packs of one command each: `bench.noop` runs unconfined (`sandbox: false`), so its anchor is a
// plain spawn; `confined.noop` gets a read command's default confinement (bubblewrap where it
// works), so its anchor is the same bubblewrap command line around `true` (see {@link spawnBwrapTrue}).
const workspace = `version: 1
command_packs:
  - id: bench
    description: Commands that cost nothing, for benchmarks.
    sandbox: false
    commands:
      - id: noop
        description: Run true, unconfined.
        argv: ["true"]
        effects: read
  - id: confined
    description: Commands that cost nothing, confined as read commands are by default.
    commands:
      - id: noop
        description: Run true in the default read sandbox.
        argv: ["true"]
        effects: read
agents:
  - id: demo
    scopes: []
    grants: [pack:bench, pack:confined]
`;

/** A temp directory holding `text` (default: the benchmark workspace), a HOME and an instance directory. */
export function benchDir(text: string = workspace): {
  root: string;
  workspace: string;
  instance: string;
  cleanup(): void;
} {
  const root = mkdtempSync(join(tmpdir(), 'harness-bench-'));
  mkdirSync(join(root, 'home'));
  const file = join(root, 'workspace.yaml');
  writeFileSync(file, text);
  return {
    root,
    workspace: file,
    instance: join(root, 'instance'),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

function env(root: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: join(root, 'home'), NO_COLOR: '1' };
}

/** The serve flags of the benchmark workspace (the default heartbeat: what a user gets). */
export function serveArgs(dir: { workspace: string; instance: string }): string[] {
  return [bin, 'serve', '--instance', dir.instance, '--workspace', dir.workspace];
}

/**
 * The real SDK client connected to `harness serve` over stdio, and the server's pid. `nodeArgs` go
 * before the bin (e.g. `--expose-gc`); `extraEnv` is added to the server's environment.
 */
export async function serveStdio(
  dir: ReturnType<typeof benchDir>,
  options: { nodeArgs?: string[]; extraEnv?: Record<string, string> } = {},
): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), ...serveArgs(dir)],
    env: { ...env(dir.root), ...options.extraEnv },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'harness-bench', version: '0.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('harness serve has no pid');
  return { client, pid };
}

/** `harness serve --http 127.0.0.1:0` as a child, and the real SDK client connected to it. */
export async function serveHttp(
  dir: ReturnType<typeof benchDir>,
): Promise<{ client: Client; child: ChildProcess; stop(): Promise<void> }> {
  // Every HTTP listener requires a bearer token; the bench gives one through the environment.
  const token = randomBytes(24).toString('hex');
  const child = spawn(process.execPath, [...serveArgs(dir), '--http', '127.0.0.1:0'], {
    env: { ...env(dir.root), HARNESS_HTTP_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr?.on('data', (c: Buffer) => {
      log += c.toString('utf8');
      const match = /at (http:\/\/\S+\/mcp)/.exec(log);
      if (match?.[1]) resolve(new URL(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${log}`)));
  });
  const client = new Client({ name: 'harness-bench', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return {
    client,
    child,
    stop: async () => {
      await client.close();
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

/** The real SDK client connected over stdio to a plain SDK server (`server`: {@link plainServer}). */
export function plainStdio(server = plainServer): Promise<Client> {
  return plainStdioArgs(server, []);
}

/** The real SDK client connected over stdio to `node <file> <args…>`. */
export async function plainStdioArgs(file: string, args: readonly string[]): Promise<Client> {
  const client = new Client({ name: 'harness-bench', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [file, ...args],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    }),
  );
  return client;
}

/**
 * The floor of a run that captures output: `true` spawned detached (its own process group, as a
 * pack command is), stdout and stderr piped and read to their end, awaited to its close.
 */
export function spawnTrue(): Promise<void> {
  return spawnPiped('true', []);
}

/**
 * `n` runs of {@link spawnTrue} with at most `inFlight` at once, the way a batch's calls are sent:
 * the floor of a batch of `n` calls of `true`.
 */
export async function spawnTrueLimited(n: number, inFlight: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < n) {
      next++;
      await spawnTrue();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, inFlight) }, lane));
}

function spawnPiped(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

/** The unconfined command of the benchmark workspace, and the confined one. */
export type NoopCommand = 'bench.noop' | 'confined.noop';

/**
 * The floor of a confined run: `true` started by bubblewrap with the command line @harness/exec
 * gives a read command under the default policy here (read-only root, private /dev, /proc and
 * /tmp, no network, its own pid namespace with the program as pid 1; the working directory, under
 * /tmp, mounted back; the deny list adds nothing because the bench HOME holds none of its paths),
 * spawned detached with both pipes read like {@link spawnTrue}.
 */
export function spawnBwrapTrue(bwrap: string, cwd: string): Promise<void> {
  const [file, ...args] = bwrapTrueArgv(bwrap, cwd);
  return spawnPiped(file as string, args);
}

/** The command line {@link spawnBwrapTrue} starts, program first. */
export function bwrapTrueArgv(bwrap: string, cwd: string): string[] {
  return [
    bwrap,
    '--die-with-parent',
    '--unshare-pid',
    '--as-pid-1',
    '--unshare-ipc',
    '--unshare-net',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--ro-bind-try',
    cwd,
    cwd,
    '--chdir',
    cwd,
    '--',
    '/usr/bin/true',
  ];
}

/** One pack-command call through a tool; throws unless the command was executed. */
export async function callNoop(
  client: Client,
  tool: 'run_command' | 'run_read_command',
  command: NoopCommand = 'bench.noop',
): Promise<void> {
  const res = await client.callTool({ name: tool, arguments: { command, args: {} } });
  const value = resultOutcome(res) as { status?: string; outcome?: { ok?: boolean } } | undefined;
  if (value?.status !== 'executed' || value.outcome?.ok !== true)
    throw new Error(`${tool} bench.noop failed: ${JSON.stringify(value)}`);
}

/** A batch of `n` calls of bench.noop through one tool call; throws unless every call executed. */
export async function callBatch(
  client: Client,
  tool: 'run_command' | 'run_read_command',
  n: number,
  command: NoopCommand = 'bench.noop',
): Promise<void> {
  const calls = Array.from({ length: n }, () => ({ command, args: {} }));
  const res = await client.callTool({ name: tool, arguments: { calls } });
  const value = resultOutcome(res) as { results?: { status?: string }[] } | undefined;
  const executed = value?.results?.filter((r) => r.status === 'executed').length ?? 0;
  if (executed !== n) throw new Error(`batch of ${n} failed: ${JSON.stringify(value)}`);
}

/** One call of the floor server's `run` tool ({@link spawnServer}); rejects unless `argv` exited 0. */
export async function callSpawnServer(client: Client, argv: string[]): Promise<void> {
  const res = await client.callTool({ name: 'run', arguments: { argv } });
  if (res.isError) throw new Error(`spawn-server run ${argv[0]} failed: ${JSON.stringify(res.content)}`);
}
