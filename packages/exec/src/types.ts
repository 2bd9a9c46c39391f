import type { ResolvedProgram } from './program';
import type { Confinement, SandboxPolicy } from './sandbox/types';
import type { Spawner } from './spawner';

/** What {@link run} does when stdout + stderr together pass `maxOutputBytes`. */
export type OnExceed = 'fail' | 'truncate';

/** What {@link RunOptions.onSpawn} is told about a child that now exists. */
export interface SpawnInfo {
  /** The child's process id. */
  readonly pid: number;
  /** Its process group id (equal to `pid`: the child leads its own group). */
  readonly pgid: number;
}

/** Options of one {@link run}: an argv, an explicit environment and its bounds. */
export interface RunOptions {
  /**
   * The program and its arguments. `argv[0]` is executed directly (never through a shell); when it
   * has no `/` it is resolved against `env.PATH` (the caller's, never this process's). Every
   * element reaches the child byte for byte; an element containing NUL is refused.
   */
  readonly argv: readonly string[];
  /**
   * The child's whole environment. Nothing is inherited from `process.env`: pass `PATH`, `HOME`,
   * `LANG` … yourself if the program needs them. Values are never expanded (`${VAR}` stays literal).
   * An `undefined` value is the same as an absent key. Default `{}`.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Working directory; must exist and be a directory. Default: this process's `cwd`. */
  readonly cwd?: string;
  /**
   * Bytes written to the child's stdin, which is then closed. `undefined` gives the child no stdin
   * at all (it reads EOF at once); this process's stdin is never inherited.
   */
  readonly stdin?: string | Uint8Array;
  /**
   * Wall-clock limit in ms from spawn until the whole process group is gone; past it the group is
   * killed and the result has `timedOut: true`. Default {@link DEFAULT_TIMEOUT_MS} (30 s).
   * `Infinity` disables the limit (not recommended).
   */
  readonly timeoutMs?: number;
  /**
   * Ceiling in bytes on stdout + stderr combined. Output is read as a stream; at most this many
   * bytes are ever held. Default {@link DEFAULT_MAX_OUTPUT_BYTES} (10 MiB).
   */
  readonly maxOutputBytes?: number;
  /**
   * `"fail"` (default, CP-48): passing the ceiling kills the process group and the result has
   * `outputExceeded: true`. `"truncate"`: the process runs to completion; the result keeps the
   * first half of the ceiling and the last half (head + tail) with a marker saying how many bytes
   * were dropped; `outputExceeded` is still `true`.
   */
  readonly onExceed?: OnExceed;
  /** Aborting it kills the process group; the result has `cancelled: true`. */
  readonly signal?: AbortSignal;
  /** Delay between SIGTERM and SIGKILL to the process group. Default {@link DEFAULT_KILL_GRACE_MS} (2 s). */
  readonly killGraceMs?: number;
  /**
   * Called synchronously once the child exists, before any of its output is read, with its pid and
   * process group id: the moment to record the group somewhere that outlives this process (a broker
   * that may be killed with SIGKILL, which skips every exit hook). If it throws, the group is killed
   * with SIGKILL and `run` rejects with that same error once the group is gone; nothing is reported
   * as having run.
   */
  readonly onSpawn?: (info: SpawnInfo) => void;
  /**
   * Called after each chunk of stdout or stderr with the bytes both streams have carried so far
   * (what `outputBytes.seen` would say at that moment, kept or dropped): for progress reports while
   * a long command runs. It runs on every chunk, so it must be cheap; a throw is ignored.
   */
  readonly onOutputBytes?: (seen: number) => void;
  /**
   * Confine the program (bubblewrap on Linux, `sandbox-exec` on macOS): what it may read and write,
   * its network, its process count; on Linux every descendant lives in the run's pid namespace and
   * dies with it. Absent: unconfined. Throws `sandbox_unavailable` (nothing spawned) when asked for
   * on a machine without a working mechanism. See docs/exec.md for what is and is not confined.
   */
  readonly sandbox?: SandboxPolicy;
  /**
   * Start the program through this spawner ({@link createSpawner}): a small process that forks in
   * place of this one, so a large caller pays neither the fork nor its copy-on-write faults and its
   * event loop never waits on an exec. Until the spawner is up (its first use starts it), and after
   * it failed to start, the run spawns directly. Nothing else changes: the pipes, bounds, kills and
   * group checks are this process's. See docs/exec.md, "Spawner".
   */
  readonly spawner?: Spawner;
  /**
   * The program `argv[0]` was already resolved to ({@link resolveProgram}): the run starts exactly
   * this file, with no search of `PATH` of its own, after checking right before the spawn that the
   * file there is still the one resolved (same device, inode, size and times); a file replaced or
   * rewritten since is refused with `program_changed` and nothing runs. What a caller that showed or
   * hashed the program first (an approval's plan) passes, so that what was approved is what runs.
   */
  readonly program?: Pick<ResolvedProgram, 'file' | 'identity'>;
}

/** Byte accounting of one output stream, or of both together. */
export interface ByteCounts {
  /** Bytes the child wrote (that reached this process before the pipes closed). */
  readonly seen: number;
  /** Bytes present in the returned text (the truncation marker is not counted). */
  readonly kept: number;
  /** `seen - kept`. */
  readonly dropped: number;
}

/**
 * Why the run ended, most specific first: a bound that fired wins over the exit it caused. The one
 * definition of these words: the pack runner's statuses, the agent runner's run records and the
 * host's audit rows use them as they are (`timed_out`, `output_exceeded`, `cancelled`, `signaled`;
 * docs/errors.md, "Outcome words").
 */
export type RunOutcome = 'exited' | 'signaled' | 'timed_out' | 'output_exceeded' | 'cancelled';

/** The outcomes in which a bound or the caller ended the run (not the program itself). */
export type KillOutcome = Extract<RunOutcome, 'timed_out' | 'output_exceeded' | 'cancelled'>;

/** The bounds a run actually used (defaults filled in). */
export interface AppliedLimits {
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly onExceed: OnExceed;
  readonly killGraceMs: number;
}

/** What a finished {@link run} reports. A run that started always resolves; it never rejects. */
export interface RunResult {
  /** `true` iff the child exited with code 0, no bound fired (not timed out, cancelled or over the ceiling) and nothing {@link RunResult.escaped}. */
  readonly ok: boolean;
  /** Why it ended; see {@link RunOutcome}. */
  readonly outcome: RunOutcome;
  /** The argv as given (argv[0] as written, not resolved). */
  readonly argv: readonly string[];
  /** Absolute path of the executable that ran. */
  readonly file: string;
  /** Child's process id (also its process group id). */
  readonly pid: number;
  /** Exit code, or `null` when the child was ended by a signal. */
  readonly exitCode: number | null;
  /** Signal that ended the child (e.g. `"SIGKILL"`), or `null` when it exited. */
  readonly signal: string | null;
  /** stdout decoded as UTF-8, bounded; contains the truncation marker when bytes were dropped. */
  readonly stdout: string;
  /** stderr decoded as UTF-8, bounded; contains the truncation marker when bytes were dropped. */
  readonly stderr: string;
  readonly stdoutBytes: ByteCounts;
  readonly stderrBytes: ByteCounts;
  /** Both streams together. */
  readonly outputBytes: ByteCounts;
  /** The timeout fired and the group was killed. */
  readonly timedOut: boolean;
  /** Output passed the ceiling (killed under `"fail"`, truncated under `"truncate"`). */
  readonly outputExceeded: boolean;
  /** The caller's `signal` aborted and the group was killed. */
  readonly cancelled: boolean;
  /**
   * The child exited on its own but left members of its process group running (e.g. `cmd &`);
   * they were killed so no descendant outlives the run.
   */
  readonly strayKilled: boolean;
  /**
   * A process that left the group (e.g. through `setsid`) still held stdout or stderr open after
   * the child's group was gone or killed. Reading stopped, our ends were closed, and the run
   * returned at its bound (the kill grace after the group ended, or timeout + kill grace). No
   * group signal reaches such a process: it may still be running. `ok` is `false`.
   */
  readonly escaped: boolean;
  /** Milliseconds from spawn until the group was gone and both pipes closed. */
  readonly durationMs: number;
  /** The bounds used for this run. */
  readonly limits: AppliedLimits;
  /** Whether and how the run was confined. */
  readonly confinement: Confinement;
}
