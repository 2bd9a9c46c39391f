// Spawning the real built bin (dist/loom.js) in tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the built bin. */
export const LOOM = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'loom.js');

/**
 * The user config every spawned bin gets unless a test names its own: `loom init` records each
 * instance's audit key there, never in the person's own `~/.config` (removed when the worker exits).
 */
export const TEST_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'loom-test-config-'));
process.once('exit', () => rmSync(TEST_CONFIG_HOME, { recursive: true, force: true }));

/** The outcome of one `loom` process. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  json: () => Record<string, unknown>;
}

/** Runs `node dist/loom.js …args` over an explicit environment (PATH plus `env`), feeding `stdin`. */
export function loom(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string | Buffer } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOOM, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_CONFIG_HOME: TEST_CONFIG_HOME, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('error', reject);
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
    child.on('close', (code) =>
      resolve({
        code,
        stdout,
        stderr,
        json: () => JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>,
      }),
    );
  });
}

/** A broker started with `loom broker start`, once it printed its ready line. */
export interface BrokerProcess {
  child: ChildProcess;
  ready: Record<string, unknown>;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

/**
 * Starts `loom broker start` and waits for the ready line (or for the process to end). `flag` names
 * the socket flag: `--socket`, or its old name `--queue`.
 */
export function startBrokerProcess(
  instance: string,
  queue: string,
  scope: string,
  flag: '--socket' | '--queue' = '--socket',
): Promise<BrokerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [LOOM, 'broker', 'start', '--instance', instance, flag, queue, '--scope', scope],
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_CONFIG_HOME: TEST_CONFIG_HOME },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.on('exit', (code, signal) => r({ code, signal })),
    );
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0)
        resolve({
          child,
          ready: JSON.parse(out.slice(0, nl)) as Record<string, unknown>,
          exited,
          stderr: () => err,
        });
    });
    exited.then(({ code }) => reject(new Error(`broker exited ${code} before ready: ${err}`)));
  });
}

/** SIGKILLs every broker process of a test that is still running and waits for each to exit. */
export async function killBrokers(brokers: BrokerProcess[]): Promise<void> {
  for (const b of brokers.splice(0)) {
    if (b.child.exitCode === null && b.child.signalCode === null) {
      b.child.kill('SIGKILL');
      await b.exited;
    }
  }
}
