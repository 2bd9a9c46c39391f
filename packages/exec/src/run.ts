import { spawn as spawnChild } from 'node:child_process';
import { once } from 'node:events';
import { isAbsolute } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import { ExecError, ExecErrorCode } from './errors';
import { groupAlive, signalGroup, trackGroup, untrackGroup } from './group';
import { AFTER_KILL_WAIT_MS, GroupWatch, POLL_MS } from './group-watch';
import { checkProgram, type ProgramIdentity } from './program';
import { checkCwd, resolveExecutable } from './resolve';
import { planSandbox, type SandboxLaunch } from './sandbox/plan';
import type { Confinement } from './sandbox/types';
import { PROGRAM_CHANGED, type StartedChild, type StartRequest, startThrough } from './spawner';
import type { AppliedLimits, OnExceed, RunOptions, RunOutcome, RunResult } from './types';

/** Built-in timeout when a run gives none: 30 s (origins: SwarmKit's default). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Built-in output ceiling (stdout + stderr) when a run gives none: 10 MiB (origins). */
export const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
/** Built-in delay between SIGTERM and SIGKILL to the process group: 2 s. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

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

// A run's options, checked: what starts the child and what bounds it.
interface CheckedRun {
  readonly argv: readonly string[];
  readonly env: Record<string, string>;
  readonly limits: AppliedLimits;
  readonly stdin: Uint8Array | string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly cwd: string;
  readonly command: string;
  readonly file: string;
  /** The identity the caller resolved `file` with, checked again right before the spawn. */
  readonly identity: ProgramIdentity | undefined;
}

/** Checks every option before anything starts; what cannot run is rejected with an {@link ExecError}. */
function checkRun(options: RunOptions): CheckedRun {
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
  const program = options.program;
  if (program !== undefined && !isAbsolute(program.file)) {
    throw invalid(
      `program.file must be the absolute path resolveProgram returned; found ${JSON.stringify(program.file)}.`,
    );
  }
  // Resolved once: by the caller (who hashed it), else here. Never a second PATH search at spawn.
  const file = program?.file ?? resolveExecutable(command, env.PATH, cwd);
  return { argv, env, limits, stdin, signal, cwd, command, file, identity: program?.identity };
}

/** What to start: the program itself, or the confining mechanism with the program's argv after it. */
function startRequest(checked: CheckedRun, launch: SandboxLaunch | undefined): StartRequest {
  return {
    file: launch?.file ?? checked.file,
    args: launch?.args ?? checked.argv.slice(1),
    argv0: launch === undefined ? checked.command : launch.file,
    env: checked.env,
    cwd: checked.cwd,
    stdin: checked.stdin !== undefined,
    ...(checked.identity === undefined ? {} : { check: { file: checked.file, ...checked.identity } }),
    ...(launch?.seccomp === undefined ? {} : { fd3: launch.seccomp.toString('base64') }),
  };
}

function spawnError(error: unknown, command: string, file: string): ExecError {
  if (error instanceof ExecError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === PROGRAM_CHANGED) {
    return new ExecError(
      ExecErrorCode.program_changed,
      `the program ${file} was replaced, rewritten or removed since it was resolved and hashed; nothing ran. Plan the call again (an approval given for the old file does not cover the new one).`,
      { cause: error },
    );
  }
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
 * Starts `request` with child_process.spawn, detached (its own process group). The seccomp program,
 * when there is one, goes to the child on descriptor 3 through a pipe closed right after it starts.
 */
function spawnDirect(request: StartRequest, seccomp: Buffer | undefined): StartedChild {
  // The last look before the exec: the file at the path is still the one the caller hashed.
  if (request.check !== undefined) checkProgram({ file: request.check.file, identity: request.check });
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

/**
 * A start that failed (ENOENT, EACCES, ...): the child process reports it as an 'error' event,
 * which becomes the rejection.
 */
async function failedStart(
  subprocess: StartedChild,
  launch: SandboxLaunch | undefined,
  command: string,
  file: string,
): Promise<never> {
  launch?.cgroup?.remove();
  launch?.protect?.release();
  const [error] = (await once(subprocess, 'error').catch((e: unknown) => [e])) as [unknown];
  throw spawnError(error, command, file);
}

/**
 * Runs the caller's spawn hook. The hook exists so the caller can track the group; a hook that
 * failed means the group is untracked, so it is killed rather than left running unrecorded.
 */
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
  const checked = checkRun(options);
  const { argv, env, cwd, command, file, signal } = checked;
  // Confined, the program is started by the mechanism (bwrap, sandbox-exec) with its argv after it.
  const launch =
    options.sandbox === undefined
      ? undefined
      : planSandbox(options.sandbox, { file, args: argv.slice(1), cwd, pwd: env.PWD });

  const started = performance.now();
  const request = startRequest(checked, launch);
  // Through the spawner when the caller gave one that is up; else child_process.spawn directly
  // (execa's per-stream machinery cost more than the rest of a run of a small program: docs/exec.md,
  // Performance), and run reads the pipes and the exit itself either way.
  const remote = options.spawner === undefined ? undefined : startThrough(options.spawner, request);
  let subprocess: StartedChild;
  try {
    subprocess = remote !== undefined ? await remote : spawnDirect(request, launch?.seccomp);
  } catch (error) {
    launch?.cgroup?.remove();
    launch?.protect?.release();
    throw spawnError(error, command, file);
  }
  const pid = subprocess.pid ?? (await failedStart(subprocess, launch, command, file));
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

  const watch = new GroupWatch(subprocess, pid, checked.limits, launch?.confinement.pidNamespace === true);
  watch.readOutput(options.onOutputBytes);
  watch.writeStdin(checked.stdin);
  watch.armTimeout();
  watch.listenForAbort(signal);
  watch.watchExit();
  await watch.pipesClosed;
  if (watch.reason !== undefined) await watch.outlastKill();
  watch.stop(signal);
  untrackGroup(pid);
  // The pipes closed after the exit ('close' follows 'exit'), unless they were abandoned.
  if (!watch.escaped) await exited;
  launch?.cgroup?.remove();
  launch?.protect?.release();
  const durationMs = performance.now() - started;
  return runResult(checked, pid, watch, durationMs, launch?.confinement ?? { confined: false });
}

/** The result of a run whose group is gone, from its checked options and what its watch saw. */
function runResult(
  checked: CheckedRun,
  pid: number,
  watch: GroupWatch,
  durationMs: number,
  confinement: Confinement,
): RunResult {
  const { collector, reason, exitCode, exitSignal, escaped } = watch;
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
    argv: checked.argv,
    file: checked.file,
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
    limits: checked.limits,
    confinement,
  };
}
