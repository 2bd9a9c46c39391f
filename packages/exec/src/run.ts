import { spawn as spawnChild } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import { ExecError, ExecErrorCode } from './errors';
import { groupAlive, signalGroup, trackGroup, untrackGroup } from './group';
import { OutputCollector } from './output';
import { checkCwd, resolveExecutable } from './resolve';
import { planSandbox } from './sandbox/plan';
import { type StartedChild, type StartRequest, startThrough } from './spawner';
import type { AppliedLimits, KillOutcome, OnExceed, RunOptions, RunOutcome, RunResult } from './types';

/** Built-in timeout when a run gives none: 30 s (origins: SwarmKit's default). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Built-in output ceiling (stdout + stderr) when a run gives none: 10 MiB (origins). */
export const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
/** Built-in delay between SIGTERM and SIGKILL to the process group: 2 s. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

// After the group was told to stop, how often to look whether it is gone.
const POLL_MS = 10;
// How long to wait for the group to vanish after SIGKILL before resolving anyway (a process in
// uninterruptible sleep cannot be hurried).
const AFTER_KILL_WAIT_MS = 2_000;
// Once the group is gone, its end of the pipes closes at once; this margin lets the close arrive.
const PIPE_CLOSE_MARGIN_MS = 200;

type KillReason = KillOutcome | 'stray';

function invalid(message: string): ExecError {
  return new ExecError(ExecErrorCode.invalid_option, message);
}

function checkArgv(argv: unknown): readonly string[] {
  if (!Array.isArray(argv) || argv.length === 0) {
    throw new ExecError(
      ExecErrorCode.invalid_argv,
      'argv must be a non-empty array of strings (argv[0] names the program); found an empty or missing argv.',
    );
  }
  argv.forEach((element: unknown, index) => {
    if (typeof element !== 'string') {
      throw new ExecError(
        ExecErrorCode.invalid_argv,
        `argv[${index}] must be a string; found ${element === null ? 'null' : typeof element}.`,
      );
    }
    if (element.includes('\0')) {
      throw new ExecError(
        ExecErrorCode.invalid_argv,
        `argv[${index}] contains a NUL byte at offset ${element.indexOf('\0')}; a process argument cannot hold NUL (the OS would cut it there). Remove the NUL.`,
      );
    }
  });
  return argv as readonly string[];
}

function checkEnv(env: RunOptions['env']): Record<string, string> {
  const clean: Record<string, string> = {};
  if (env === undefined) return clean;
  if (env === null || typeof env !== 'object') throw invalid('env must be an object of strings.');
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (key === '' || key.includes('=') || key.includes('\0')) {
      throw new ExecError(
        ExecErrorCode.invalid_env,
        `env key ${JSON.stringify(key)} is not a variable name; expected a non-empty name without "=" or NUL.`,
      );
    }
    // The value itself is never quoted into the message: it may be a credential.
    if (typeof value !== 'string') {
      throw new ExecError(ExecErrorCode.invalid_env, `env.${key} must be a string; found ${typeof value}.`);
    }
    if (value.includes('\0')) {
      throw new ExecError(
        ExecErrorCode.invalid_env,
        `env.${key} contains a NUL byte; an environment value cannot hold NUL. Remove it.`,
      );
    }
    clean[key] = value;
  }
  return clean;
}

function checkLimits(options: RunOptions): AppliedLimits {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs <= 0) {
    throw invalid(`timeoutMs must be a number > 0 (or Infinity); found ${String(timeoutMs)}.`);
  }
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (!Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < 0) {
    throw invalid(`maxOutputBytes must be an integer >= 0; found ${String(maxOutputBytes)}.`);
  }
  const onExceed: OnExceed = options.onExceed ?? 'fail';
  if (onExceed !== 'fail' && onExceed !== 'truncate') {
    throw invalid(`onExceed must be "fail" or "truncate"; found ${JSON.stringify(onExceed)}.`);
  }
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (typeof killGraceMs !== 'number' || !Number.isFinite(killGraceMs) || killGraceMs < 0) {
    throw invalid(`killGraceMs must be a finite number >= 0; found ${String(killGraceMs)}.`);
  }
  return { timeoutMs, maxOutputBytes, onExceed, killGraceMs };
}

function checkStdin(stdin: unknown): Uint8Array | string | undefined {
  if (stdin === undefined || typeof stdin === 'string' || stdin instanceof Uint8Array) return stdin;
  throw invalid(
    `stdin must be a string, a Uint8Array or undefined; found ${stdin === null ? 'null' : typeof stdin}.`,
  );
}

function spawnError(error: unknown, command: string, file: string): ExecError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') {
    return new ExecError(
      ExecErrorCode.executable_not_found,
      `executable ${JSON.stringify(command)} (${file}) vanished before it could start; expected an existing executable file.`,
      { cause: error },
    );
  }
  if (code === 'EACCES') {
    return new ExecError(
      ExecErrorCode.not_executable,
      `executable ${JSON.stringify(command)} (${file}) could not be executed (EACCES); expected execute permission.`,
      { cause: error },
    );
  }
  return new ExecError(
    ExecErrorCode.spawn_failed,
    `executable ${JSON.stringify(command)} (${file}) failed to start (${code ?? 'unknown error'}); for ENOEXEC give the script a "#!" line, for E2BIG shorten argv or env.`,
    { cause: error },
  );
}

// The parts of the child process a failed spawn hook touches.
interface ChildPipes {
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly stdin: Writable | null;
}

/**
 * Runs the caller's spawn hook. The hook exists so the caller can track the group; a hook that
 * failed means the group is untracked, so it is killed rather than left running unrecorded.
 */
/**
 * Starts `request` with child_process.spawn, detached (its own process group). The seccomp program,
 * when there is one, goes to the child on descriptor 3 through a pipe closed right after it starts.
 */
function spawnDirect(request: StartRequest, seccomp: Buffer | undefined): StartedChild {
  const stdio: ('pipe' | 'ignore')[] = [request.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'];
  if (seccomp !== undefined) stdio.push('pipe');
  const child = spawnChild(request.file, request.args, {
    argv0: request.argv0,
    env: request.env,
    cwd: request.cwd,
    detached: true,
    stdio,
    windowsHide: true,
  });
  const pipe = child.stdio[3] as Writable | null | undefined;
  if (seccomp !== undefined && pipe) pipe.on('error', () => {}).end(seccomp);
  return child;
}

function callOnSpawn(
  onSpawn: NonNullable<RunOptions['onSpawn']>,
  pid: number,
  subprocess: ChildPipes,
  exited: Promise<unknown>,
): Promise<never> | undefined {
  try {
    onSpawn({ pid, pgid: pid });
    return undefined;
  } catch (error) {
    return killAfterFailedHook(error, pid, subprocess, exited);
  }
}

async function killAfterFailedHook(
  error: unknown,
  pid: number,
  subprocess: ChildPipes,
  exited: Promise<unknown>,
): Promise<never> {
  signalGroup(pid, 'SIGKILL');
  // Nobody reads the pipes now; let them drain so the child's close is not held up.
  subprocess.stdout?.resume();
  subprocess.stderr?.resume();
  subprocess.stdin?.destroy();
  await exited;
  const deadline = performance.now() + AFTER_KILL_WAIT_MS;
  while (groupAlive(pid) && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  untrackGroup(pid);
  throw error;
}

/**
 * Runs `argv` as one bounded process: no shell, the given env only, in its own process group.
 *
 * Rejects with {@link ExecError} (and spawns nothing) when the argv, env, cwd, bounds or executable
 * are wrong, or the signal is already aborted. Once the process started the promise always resolves:
 * a nonzero exit, a signal, a timeout, a cancellation or output past the ceiling are fields of the
 * {@link RunResult}. It resolves only when the whole process group is gone: a timeout, an abort or
 * (under `onExceed: "fail"`) the ceiling sends SIGTERM to the group and SIGKILL after `killGraceMs`;
 * members left running after the child itself exited are killed the same way (`strayKilled`).
 * `onSpawn` is told the pid and group id as soon as the child exists; a hook that throws gets the
 * group killed and its error rethrown.
 *
 * @example
 * const r = await run({ argv: ['git', 'status', '--short'], env: { PATH: '/usr/bin:/bin' }, cwd: repo });
 * if (!r.ok) console.error(r.outcome, r.exitCode, r.stderr);
 */
export async function run(options: RunOptions): Promise<RunResult> {
  const argv = checkArgv(options.argv);
  const env = checkEnv(options.env);
  const limits = checkLimits(options);
  const stdin = checkStdin(options.stdin);
  const signal = options.signal;
  if (signal?.aborted) {
    throw new ExecError(
      ExecErrorCode.aborted,
      'the run was cancelled before it started (signal already aborted); nothing ran.',
    );
  }
  const cwd = checkCwd(options.cwd ?? process.cwd());
  const command = argv[0] as string;
  const file = resolveExecutable(command, env.PATH, cwd);
  // Confined, the program is started by the mechanism (bwrap, sandbox-exec) with its argv after it.
  const launch =
    options.sandbox === undefined
      ? undefined
      : planSandbox(options.sandbox, { file, args: argv.slice(1), cwd, pwd: env.PWD });

  const pidNamespace = launch?.confinement.pidNamespace === true;
  const started = performance.now();
  const request = {
    file: launch?.file ?? file,
    args: launch?.args ?? argv.slice(1),
    argv0: launch === undefined ? command : launch.file,
    env,
    cwd,
    stdin: stdin !== undefined,
    ...(launch?.seccomp === undefined ? {} : { fd3: launch.seccomp.toString('base64') }),
  };
  // Through the spawner when the caller gave one that is up; else child_process.spawn directly
  // (execa's per-stream machinery cost more than the rest of a run of a small program: docs/exec.md,
  // Performance), and run reads the pipes and the exit itself either way.
  const remote = options.spawner === undefined ? undefined : startThrough(options.spawner, request);
  let subprocess: StartedChild;
  try {
    subprocess = remote !== undefined ? await remote : spawnDirect(request, launch?.seccomp);
  } catch (error) {
    launch?.cgroup?.remove();
    throw spawnError(error, command, file);
  }
  const pid = subprocess.pid;
  if (pid === undefined) {
    // The start failed (ENOENT, EACCES, ...): the child process reports it as an 'error' event.
    launch?.cgroup?.remove();
    const [error] = (await once(subprocess, 'error').catch((e: unknown) => [e])) as [unknown];
    throw spawnError(error, command, file);
  }
  // A late 'error' (a failed kill, a pipe) must not go unhandled; the exit and pipes tell the result.
  subprocess.on('error', () => {});
  const exited =
    subprocess.exitCode !== null || subprocess.signalCode !== null
      ? Promise.resolve()
      : once(subprocess, 'exit').catch(() => undefined);
  trackGroup(pid);
  if (options.onSpawn !== undefined) {
    // Only a failed hook awaits (the group's end); a good one adds no turn of the event loop.
    const failed = callOnSpawn(options.onSpawn, pid, subprocess, exited);
    if (failed !== undefined) await failed;
  }

  const collector = new OutputCollector(limits.maxOutputBytes);
  let reason: KillReason | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  let exitCode: number | null = null;
  let exitSignal: string | null = null;

  // A process that left the group (setsid) may hold our pipes open forever; no group signal
  // reaches it. Once the group is told to stop (or is gone), the pipes get the kill grace to
  // close; then we stop reading, close our ends and report the escape.
  let escaped = false;
  let closed = false;
  let abandonTimer: NodeJS.Timeout | undefined;
  let resolveClosed: () => void = () => {};
  const pipesClosed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  // A member of the group still alive (SIGKILL not yet taken effect, a loaded machine) holds the
  // pipes itself: wait for it, up to AFTER_KILL_WAIT_MS. Once the group is seen gone, the pipes'
  // close still gets PIPE_CLOSE_MARGIN_MS to arrive; only then is whatever holds them an escapee.
  let groupGoneSeen = false;
  const abandonPipesAfter = (ms: number): void => {
    if (abandonTimer !== undefined) return;
    const hardDeadline = performance.now() + ms + AFTER_KILL_WAIT_MS;
    const check = (): void => {
      if (closed) return;
      if (groupAlive(pid) && performance.now() < hardDeadline) {
        abandonTimer = setTimeout(check, POLL_MS);
        return;
      }
      if (!groupGoneSeen) {
        groupGoneSeen = true;
        abandonTimer = setTimeout(check, PIPE_CLOSE_MARGIN_MS);
        return;
      }
      escaped = true;
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
      subprocess.stdin?.destroy();
      resolveClosed();
    };
    abandonTimer = setTimeout(check, ms);
  };

  const startKill = (why: KillReason): void => {
    if (reason !== undefined) return;
    reason = why;
    signalGroup(pid, 'SIGTERM');
    graceTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), limits.killGraceMs);
    abandonPipesAfter(limits.killGraceMs);
  };

  const onOutputBytes = options.onOutputBytes;
  const take = (fd: 0 | 1, chunk: Buffer): void => {
    collector.push(fd, chunk);
    if (limits.onExceed === 'fail' && collector.exceeded) startKill('output_exceeded');
    if (onOutputBytes === undefined) return;
    try {
      onOutputBytes(collector.seen);
    } catch {
      // An observer's failure must not end the run or lose its output.
    }
  };
  subprocess.stdout?.on('data', (chunk: Buffer) => take(0, chunk));
  subprocess.stderr?.on('data', (chunk: Buffer) => take(1, chunk));
  if (stdin !== undefined && subprocess.stdin) {
    // A child that exits without reading its input makes the write fail with EPIPE; its exit
    // status, not the broken pipe, is what the caller needs.
    subprocess.stdin.on('error', () => {});
    subprocess.stdin.end(stdin);
  }

  const timeoutTimer = Number.isFinite(limits.timeoutMs)
    ? setTimeout(() => startKill('timed_out'), limits.timeoutMs)
    : undefined;
  const onAbort = (): void => startKill('cancelled');
  signal?.addEventListener('abort', onAbort, { once: true });
  // Aborted while the spawner was starting the child: the listener came too late to hear it.
  if (signal?.aborted) onAbort();

  const onExit = (code: number | null, sig: NodeJS.Signals | null): void => {
    exitCode = code;
    exitSignal = sig;
    // The child is gone; anything of its group still running would outlive the run (and may
    // hold the pipes open, which would otherwise keep us waiting until the timeout). In a pid
    // namespace the kernel ends every member with the namespace's init, which bubblewrap ends with
    // itself (--die-with-parent): nothing can outlive the run, so the costly /proc scan of
    // groupAlive is skipped, and a member still being torn down is not mistaken for a stray.
    if (reason === undefined && !pidNamespace && groupAlive(pid)) startKill('stray');
    // Nothing of the group is left: whatever still holds the pipes escaped it.
    else if (reason === undefined) abandonPipesAfter(limits.killGraceMs);
  };
  // A child started by the spawner may have exited while its pipes were on their way here.
  if (subprocess.exitCode !== null || subprocess.signalCode !== null)
    onExit(subprocess.exitCode, subprocess.signalCode);
  else subprocess.once('exit', onExit);
  subprocess.once('close', () => {
    closed = true;
    resolveClosed();
  });
  await pipesClosed;

  if (reason !== undefined) {
    // The pipes closed, but a member that ignores SIGTERM and let go of the pipes may live on.
    const deadline = performance.now() + limits.killGraceMs + AFTER_KILL_WAIT_MS;
    while (groupAlive(pid) && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  clearTimeout(graceTimer);
  clearTimeout(timeoutTimer);
  clearTimeout(abandonTimer);
  signal?.removeEventListener('abort', onAbort);
  untrackGroup(pid);
  // The pipes closed after the exit ('close' follows 'exit'), unless they were abandoned.
  if (!escaped) await exited;
  launch?.cgroup?.remove();
  const durationMs = performance.now() - started;

  const out = collector.result(0);
  const err = collector.result(1);
  const timedOut = reason === 'timed_out';
  const cancelled = reason === 'cancelled';
  const killedForOutput = reason === 'output_exceeded';
  const outcome: RunOutcome = timedOut
    ? 'timed_out'
    : cancelled
      ? 'cancelled'
      : killedForOutput
        ? 'output_exceeded'
        : exitSignal !== null
          ? 'signaled'
          : 'exited';
  return {
    ok: outcome === 'exited' && exitCode === 0 && !escaped,
    outcome,
    argv,
    file,
    pid,
    exitCode,
    signal: exitSignal,
    stdout: out.text,
    stderr: err.text,
    stdoutBytes: { seen: out.seen, kept: out.kept, dropped: out.seen - out.kept },
    stderrBytes: { seen: err.seen, kept: err.kept, dropped: err.seen - err.kept },
    outputBytes: {
      seen: out.seen + err.seen,
      kept: out.kept + err.kept,
      dropped: out.seen - out.kept + err.seen - err.kept,
    },
    timedOut,
    outputExceeded: collector.exceeded,
    cancelled,
    strayKilled: reason === 'stray',
    escaped,
    durationMs,
    limits,
    confinement: launch?.confinement ?? { confined: false },
  };
}
