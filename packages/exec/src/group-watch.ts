import { performance } from 'node:perf_hooks';
import { groupAlive, signalGroup } from './group';
import { OutputCollector } from './output';
import type { StartedChild } from './spawner';
import type { AppliedLimits, KillOutcome, RunOptions } from './types';

// After the group was told to stop, how often to look whether it is gone.
export const POLL_MS = 10;
// How long to wait for the group to vanish after SIGKILL before resolving anyway (a process in
// uninterruptible sleep cannot be hurried).
export const AFTER_KILL_WAIT_MS = 2_000;
// Once the group is gone, its end of the pipes closes at once; this margin lets the close arrive.
const PIPE_CLOSE_MARGIN_MS = 200;

/** Why the group was told to stop: a run's kill outcome, or `stray` for members left after the child exited. */
export type KillReason = KillOutcome | 'stray';

/**
 * One started child's process group, watched from its start until its pipes close: it collects the
 * output against the ceiling, stops the group (SIGTERM, then SIGKILL after the grace) on a timeout,
 * an abort, output past the ceiling or members outliving the child, and gives up on pipes that an
 * escaped process holds open. Its fields are the run's result once {@link pipesClosed} settled.
 */
export class GroupWatch {
  readonly collector: OutputCollector;
  /** Settles when the child's pipes closed, or were abandoned to a process that escaped the group. */
  readonly pipesClosed: Promise<void>;
  readonly #subprocess: StartedChild;
  readonly #pid: number;
  readonly #limits: AppliedLimits;
  readonly #pidNamespace: boolean;
  #reason: KillReason | undefined;
  #graceTimer: NodeJS.Timeout | undefined;
  #timeoutTimer: NodeJS.Timeout | undefined;
  #exitCode: number | null = null;
  #exitSignal: string | null = null;

  // A process that left the group (setsid) may hold our pipes open forever; no group signal
  // reaches it. Once the group is told to stop (or is gone), the pipes get the kill grace to
  // close; then we stop reading, close our ends and report the escape.
  #escaped = false;
  #closed = false;
  #abandonTimer: NodeJS.Timeout | undefined;
  #resolveClosed: () => void = () => {};
  // A member of the group still alive (SIGKILL not yet taken effect, a loaded machine) holds the
  // pipes itself: wait for it, up to AFTER_KILL_WAIT_MS. Once the group is seen gone, the pipes'
  // close still gets PIPE_CLOSE_MARGIN_MS to arrive; only then is whatever holds them an escapee.
  #groupGoneSeen = false;

  readonly #onAbort = (): void => this.#startKill('cancelled');

  /** `pidNamespace`: the group lives in its own pid namespace, which ends with the child. */
  constructor(subprocess: StartedChild, pid: number, limits: AppliedLimits, pidNamespace: boolean) {
    this.#subprocess = subprocess;
    this.#pid = pid;
    this.#limits = limits;
    this.#pidNamespace = pidNamespace;
    this.collector = new OutputCollector(limits.maxOutputBytes);
    this.pipesClosed = new Promise<void>((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  /** Why the group was told to stop; `undefined` when it never was. */
  get reason(): KillReason | undefined {
    return this.#reason;
  }

  get exitCode(): number | null {
    return this.#exitCode;
  }

  get exitSignal(): string | null {
    return this.#exitSignal;
  }

  /** True when the pipes were abandoned to a process that escaped the group. */
  get escaped(): boolean {
    return this.#escaped;
  }

  /** Reads stdout and stderr into the collector, stopping the group at the ceiling under `fail`. */
  readOutput(onOutputBytes: RunOptions['onOutputBytes']): void {
    const take = (fd: 0 | 1, chunk: Buffer): void => {
      this.collector.push(fd, chunk);
      if (this.#limits.onExceed === 'fail' && this.collector.exceeded) this.#startKill('output_exceeded');
      if (onOutputBytes === undefined) return;
      try {
        onOutputBytes(this.collector.seen);
      } catch {
        // An observer's failure must not end the run or lose its output.
      }
    };
    this.#subprocess.stdout?.on('data', (chunk: Buffer) => take(0, chunk));
    this.#subprocess.stderr?.on('data', (chunk: Buffer) => take(1, chunk));
  }

  /** Writes the whole of `stdin` to the child and closes it. */
  writeStdin(stdin: Uint8Array | string | undefined): void {
    if (stdin !== undefined && this.#subprocess.stdin) {
      // A child that exits without reading its input makes the write fail with EPIPE; its exit
      // status, not the broken pipe, is what the caller needs.
      this.#subprocess.stdin.on('error', () => {});
      this.#subprocess.stdin.end(stdin);
    }
  }

  /** Stops the group once the run's timeout passed (never, for an infinite one). */
  armTimeout(): void {
    this.#timeoutTimer = Number.isFinite(this.#limits.timeoutMs)
      ? setTimeout(() => this.#startKill('timed_out'), this.#limits.timeoutMs)
      : undefined;
  }

  /** Stops the group when `signal` aborts. */
  listenForAbort(signal: AbortSignal | undefined): void {
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    // Aborted while the spawner was starting the child: the listener came too late to hear it.
    if (signal?.aborted) this.#onAbort();
  }

  /** Records the child's exit and settles {@link pipesClosed} at the pipes' close. */
  watchExit(): void {
    const subprocess = this.#subprocess;
    // A child started by the spawner may have exited while its pipes were on their way here.
    if (subprocess.exitCode !== null || subprocess.signalCode !== null)
      this.#onExit(subprocess.exitCode, subprocess.signalCode);
    else
      subprocess.once('exit', (code: number | null, sig: NodeJS.Signals | null) => this.#onExit(code, sig));
    subprocess.once('close', () => {
      this.#closed = true;
      this.#resolveClosed();
    });
  }

  /** After a kill: waits for the group to be gone, up to the grace plus AFTER_KILL_WAIT_MS. */
  async outlastKill(): Promise<void> {
    // The pipes closed, but a member that ignores SIGTERM and let go of the pipes may live on.
    const deadline = performance.now() + this.#limits.killGraceMs + AFTER_KILL_WAIT_MS;
    while (groupAlive(this.#pid) && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Clears every timer and stops listening to `signal`. */
  stop(signal: AbortSignal | undefined): void {
    clearTimeout(this.#graceTimer);
    clearTimeout(this.#timeoutTimer);
    clearTimeout(this.#abandonTimer);
    signal?.removeEventListener('abort', this.#onAbort);
  }

  #onExit(code: number | null, sig: NodeJS.Signals | null): void {
    this.#exitCode = code;
    this.#exitSignal = sig;
    // The child is gone; anything of its group still running would outlive the run (and may
    // hold the pipes open, which would otherwise keep us waiting until the timeout). In a pid
    // namespace the kernel ends every member with the namespace's init, which bubblewrap ends with
    // itself (--die-with-parent): nothing can outlive the run, so the costly /proc scan of
    // groupAlive is skipped, and a member still being torn down is not mistaken for a stray.
    if (this.#reason === undefined && !this.#pidNamespace && groupAlive(this.#pid)) this.#startKill('stray');
    // Nothing of the group is left: whatever still holds the pipes escaped it.
    else if (this.#reason === undefined) this.#abandonPipesAfter(this.#limits.killGraceMs);
  }

  #startKill(why: KillReason): void {
    if (this.#reason !== undefined) return;
    this.#reason = why;
    signalGroup(this.#pid, 'SIGTERM');
    this.#graceTimer = setTimeout(() => signalGroup(this.#pid, 'SIGKILL'), this.#limits.killGraceMs);
    this.#abandonPipesAfter(this.#limits.killGraceMs);
  }

  #abandonPipesAfter(ms: number): void {
    if (this.#abandonTimer !== undefined) return;
    const hardDeadline = performance.now() + ms + AFTER_KILL_WAIT_MS;
    const check = (): void => this.#abandonPipesUnlessClosed(hardDeadline, check);
    this.#abandonTimer = setTimeout(check, ms);
  }

  #abandonPipesUnlessClosed(hardDeadline: number, check: () => void): void {
    if (this.#closed) return;
    if (groupAlive(this.#pid) && performance.now() < hardDeadline) {
      this.#abandonTimer = setTimeout(check, POLL_MS);
      return;
    }
    if (!this.#groupGoneSeen) {
      this.#groupGoneSeen = true;
      this.#abandonTimer = setTimeout(check, PIPE_CLOSE_MARGIN_MS);
      return;
    }
    this.#escaped = true;
    this.#subprocess.stdout?.destroy();
    this.#subprocess.stderr?.destroy();
    this.#subprocess.stdin?.destroy();
    this.#resolveClosed();
  }
}
