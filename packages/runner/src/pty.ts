// stdin delivery (TM-95…TM-100): fd 0 a pipe carrying the whole prompt then EOF; fds 1 and 2 a PTY
// that is the controlling terminal. node-pty opens the PTY and starts trampoline/stdin.js as the
// session leader on it; the trampoline starts the program with a pipe as fd 0 and feeds the pipe
// from a private Unix socket this side serves. The prompt never passes through the PTY.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ExecError,
  ExecErrorCode,
  type KillOutcome,
  type RunOutcome,
  resolveExecutable,
} from '@harness/exec';
import { spawn } from '@lydell/node-pty';

/**
 * The trampoline script, resolved through the package's own exports so a bundler that inlines this
 * module (the `harness` bin does) still finds the shipped file.
 */
export function trampolinePath(): string {
  return createRequire(import.meta.url).resolve('@harness/runner/trampoline/stdin.js');
}

/** How a PTY run ended. */
export interface PtyResult {
  readonly outcome: RunOutcome;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** What the program wrote to the terminal (fds 1 and 2), decoded, at most `maxOutputBytes`. */
  readonly output: string;
  readonly outputBytes: number;
  readonly pid: number;
  readonly durationMs: number;
}

/** What {@link runWithPty} runs. */
export interface PtyRun {
  readonly name: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly stdin: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly killGraceMs?: number;
  readonly onSpawn?: (pid: number) => void;
  /** Aborting it kills the session's process group; the outcome is `cancelled`. */
  readonly signal?: AbortSignal;
}

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  9: 'SIGKILL',
  15: 'SIGTERM',
  6: 'SIGABRT',
  13: 'SIGPIPE',
};

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * Runs a program with the prompt on fd 0 (a pipe) and a PTY on fds 1 and 2 as its controlling
 * terminal. The executable is resolved against `env.PATH` first, so a missing program throws
 * `ExecError` like every other run. Timeout and output ceiling kill the whole session's group.
 */
export async function runWithPty(run: PtyRun): Promise<PtyResult> {
  if (!statSync(run.cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ExecError(
      ExecErrorCode.cwd_not_found,
      `working directory ${run.cwd} does not exist or is not a directory; fix the harness's workdir.`,
    );
  }
  const file = resolveExecutable(run.name, run.env.PATH, run.cwd);
  const dir = mkdtempSync(join(tmpdir(), 'harness-stdin-'));
  const socketPath = join(dir, 'prompt.sock');
  const server = createServer((conn) => {
    server.close();
    conn.on('error', () => undefined);
    conn.end(run.stdin);
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolveListen());
  });
  const started = performance.now();
  const term = spawn(process.execPath, [trampolinePath(), socketPath, file, ...run.args], {
    name: 'xterm',
    cols: 120,
    rows: 40,
    cwd: run.cwd,
    env: { ...run.env },
  });
  run.onSpawn?.(term.pid);
  let output = '';
  let bytes = 0;
  let reason: KillOutcome | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const stop = (why: KillOutcome): void => {
    if (reason !== undefined) return;
    reason = why;
    killGroup(term.pid, 'SIGTERM');
    graceTimer = setTimeout(() => killGroup(term.pid, 'SIGKILL'), run.killGraceMs ?? 2000);
  };
  term.onData((data) => {
    const size = Buffer.byteLength(data);
    if (bytes + size > run.maxOutputBytes) {
      output += Buffer.from(data)
        .subarray(0, Math.max(0, run.maxOutputBytes - bytes))
        .toString();
      bytes = run.maxOutputBytes;
      stop('output_exceeded');
      return;
    }
    bytes += size;
    output += data;
  });
  const onAbort = (): void => stop('cancelled');
  if (run.signal?.aborted) onAbort();
  run.signal?.addEventListener('abort', onAbort);
  const timer = Number.isFinite(run.timeoutMs)
    ? setTimeout(() => stop('timed_out'), run.timeoutMs)
    : undefined;
  const exit = await new Promise<{ exitCode: number; signal?: number }>((resolveExit) =>
    term.onExit(resolveExit),
  );
  clearTimeout(timer);
  clearTimeout(graceTimer);
  run.signal?.removeEventListener('abort', onAbort);
  // No member of the session outlives the run.
  killGroup(term.pid, 'SIGKILL');
  server.close();
  rmSync(dir, { recursive: true, force: true });
  const signal = exit.signal ? (SIGNALS[exit.signal] ?? `SIG${exit.signal}`) : null;
  return {
    outcome: reason ?? (signal !== null ? 'signaled' : 'exited'),
    exitCode: signal !== null ? null : exit.exitCode,
    signal,
    output,
    outputBytes: bytes,
    pid: term.pid,
    durationMs: Math.round(performance.now() - started),
  };
}
