// Shared by the CLI tests: the real bin, spawned with a temp HOME and instance so no test touches
// ~/.local/share, and real MCP SDK clients connected to it.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { resultOutcome } from '@harness/commands/mcp';
import { tempDir } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const bin = join(appDir, 'dist', 'harness.js');
export const loomBin = join(appDir, '..', 'loom', 'dist', 'loom.js');
export const slowWorkspace = join(appDir, 'test', 'fixtures', 'slow', 'workspace.yaml');

/**
 * A directory of symlinks to every program on this PATH (and node's own) but `left`, first found
 * first, as `.ci/run` builds one: a PATH on which those programs are missing. Returns the directory.
 */
export function pathWithout(dir: string, left: readonly string[]): string {
  mkdirSync(dir, { recursive: true });
  const dirs = [...(process.env.PATH ?? '').split(':'), dirname(process.execPath)].filter(isAbsolute);
  const linked = new Set(left);
  for (const from of dirs) {
    let names: string[];
    try {
      names = readdirSync(from);
    } catch {
      continue;
    }
    for (const name of names) {
      if (linked.has(name)) continue;
      linked.add(name);
      symlinkSync(join(from, name), join(dir, name));
    }
  }
  return dir;
}

/** A temp directory holding a HOME and an instance; `cleanup()` removes both. */
export function sandbox(): { root: string; home: string; instance: string; cleanup: () => void } {
  const dir = tempDir('harness-cli-');
  return {
    root: dir.path,
    home: join(dir.path, 'home'),
    instance: join(dir.path, 'instance'),
    cleanup: dir.cleanup,
  };
}

/** The environment every spawned bin gets: nothing inherited but PATH, a temp HOME, no colour. */
export function baseEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', ...extra };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/harness.js …args` to completion (in `cwd`, default the test's own directory). */
export function runCli(
  args: string[],
  options: { home: string; env?: Record<string, string>; input?: string; timeoutMs?: number; cwd?: string },
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      {
        env: baseEnv(options.home, options.env),
        timeout: options.timeoutMs ?? 50_000,
        maxBuffer: 16 << 20,
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** The real MCP SDK client over stdio, spawning `harness serve …args`. */
export async function connectStdio(
  args: string[],
  home: string,
  env: Record<string, string> = {},
): Promise<{
  client: Client;
  stderr: () => string;
  /** Resolves with stderr once it holds `text` (serve prints some lines after its first answers). */
  stderrWith: (text: string, timeoutMs?: number) => Promise<string>;
  close: () => Promise<void>;
}> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', ...args],
    env: baseEnv(home, env),
    stderr: 'pipe',
  });
  let log = '';
  // Each waiter looks again whenever serve writes to stderr.
  const waiters = new Set<() => void>();
  transport.stderr?.on('data', (c: Buffer) => {
    log += c.toString('utf8');
    for (const look of waiters) look();
  });
  const client = new Client({ name: 'harness-cli-test', version: '0.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    // What serve said before it closed is why.
    throw new Error(`harness serve closed before it answered: ${log.trim() || (error as Error).message}`, {
      cause: error,
    });
  }
  const stderrWith = (text: string, timeoutMs = 20_000): Promise<string> =>
    new Promise((resolve) => {
      if (log.includes(text)) return resolve(log);
      const done = (): void => {
        clearTimeout(bound);
        waiters.delete(look);
        resolve(log);
      };
      const look = (): void => {
        if (log.includes(text)) done();
      };
      const bound = setTimeout(done, timeoutMs);
      waiters.add(look);
    });
  return { client, stderr: () => log, stderrWith, close: () => client.close() };
}

/** `harness serve …args` over stdio as a plain child process, spoken to line by line, without an SDK client. */
export function serveLines(
  args: string[],
  home: string,
): {
  /** Writes text to serve's stdin as it is (a line needs its own newline); resolves once it is flushed. */
  write: (text: string) => Promise<void>;
  /** Writes one message as a line of JSON. */
  send: (message: unknown) => Promise<void>;
  /** The next line serve writes on stdout, parsed; rejects if serve exits first. */
  next: () => Promise<unknown>;
  stderr: () => string;
  stop: () => Promise<void>;
} {
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    env: baseEnv(home),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (c: Buffer) => {
    log += c.toString('utf8');
  });
  const lines: string[] = [];
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let exited: Error | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(line);
    else lines.push(line);
  });
  child.once('exit', (code, signal) => {
    exited = new Error(`serve exited (${code ?? signal}) before writing another line: ${log}`);
    for (const waiter of waiting.splice(0)) waiter.reject(exited);
  });
  const write = (text: string) =>
    new Promise<void>((resolve, reject) => child.stdin.write(text, (e) => (e ? reject(e) : resolve())));
  return {
    write,
    send: (message) => write(`${JSON.stringify(message)}\n`),
    next: async () => {
      const queued = lines.shift();
      if (queued !== undefined) return JSON.parse(queued);
      if (exited) throw exited;
      return JSON.parse(await new Promise<string>((resolve, reject) => waiting.push({ resolve, reject })));
    },
    stderr: () => log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/** `harness serve --http …` as a child process, with the URL it printed on stderr. */
export async function startHttp(
  args: string[],
  home: string,
  env: Record<string, string> = {},
): Promise<{
  url: URL;
  child: ChildProcess;
  stderr: () => string;
  /** The bearer token: read from the file serve says it is in, else `env.HARNESS_HTTP_TOKEN`. */
  token: string;
  stop: () => Promise<void>;
}> {
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    env: baseEnv(home, env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let log = '';
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no URL: ${log}`)), 20_000);
    child.stderr?.on('data', (c: Buffer) => {
      log += c.toString('utf8');
      const match = /at (http:\/\/\S+\/mcp)/.exec(log);
      if (match?.[1] && /bearer token (in|from) /.test(log)) {
        clearTimeout(timer);
        resolve(new URL(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${log}`));
    });
  });
  const tokenFile = /bearer token in (\S+) /.exec(log)?.[1];
  const token = tokenFile
    ? (readFileSync(tokenFile, 'utf8').split('\n')[0] ?? '')
    : (env.HARNESS_HTTP_TOKEN ?? '');
  return {
    url,
    child,
    token,
    stderr: () => log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The real MCP SDK client over streamable HTTP. */
export async function connectHttp(url: URL, token?: string): Promise<Client> {
  const client = new Client({ name: 'harness-cli-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(url, {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  await client.connect(transport);
  return client;
}

/**
 * A tool result's whole typed outcome, as a program reads it: a call tool's under `_meta` (its
 * `structuredContent` is the lean reply a model reads), any other tool's as its `structuredContent`.
 */
export function structured(result: unknown): Record<string, unknown> {
  return resultOutcome(result as Parameters<typeof resultOutcome>[0]) as Record<string, unknown>;
}

/** Reads a nested field. */
export function get(value: unknown, ...path: (string | number)[]): unknown {
  let v: unknown = value;
  for (const k of path)
    v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[k] : undefined;
  return v;
}

/**
 * Accepts every tool each of `servers` lists now, as a person does before serving them
 * (`harness servers accept <id> --all`): the instance is created by the first accept when absent,
 * serving `agent`.
 */
export async function acceptServers(
  servers: readonly string[],
  workspace: string,
  instance: string,
  home: string,
  agent = 'coder',
): Promise<void> {
  for (const id of servers) {
    const r = await runCli(
      ['servers', 'accept', id, '--all', '--workspace', workspace, '--instance', instance, '--agent', agent],
      { home },
    );
    if (r.code !== 0) throw new Error(`harness servers accept ${id} --all exited ${r.code}: ${r.stderr}`);
  }
}
