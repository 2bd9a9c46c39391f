// The runs one broker connection has in flight: each one's cancel signal, and the timer of its
// progress lines (docs/protocol.md, "Progress and cancellation"), which name the approval a run
// waits for while it waits.
import type { RunProgress } from '@harness/protocol';
import type { ApprovalWaiting, RunControl } from './command/types';

/** One run begun on a connection: what the host is given, and what ends its tracking. */
export interface TrackedRun {
  /** The run's cancel signal, and (when it asked for progress) its output observer. */
  readonly control: RunControl;
  /** Stops its progress lines and forgets it; call once its answer is ready. */
  end(): void;
}

/**
 * The runs of one connection, by request id. A `cancel` names a request id of its own connection
 * only, so one client can never stop another's calls. A run that asked for progress gets a line
 * every `everyMs` from `everyMs` on, until it ends, and one at once when it begins to wait for a
 * person's decision (each line names that approval while the wait lasts).
 */
export class RunsInFlight {
  readonly #byId = new Map<string, Set<AbortController>>();
  // Requests cancelled while they waited, unread, for one of the connection's slots.
  readonly #early = new Set<string>();
  readonly #everyMs: number;
  readonly #report: (id: string, progress: RunProgress) => void;

  /** `report` writes one progress line; it is called only while the run is in flight. */
  constructor(everyMs: number, report: (id: string, progress: RunProgress) => void) {
    this.#everyMs = everyMs;
    this.#report = report;
  }

  /** Starts tracking request `id` (a client may reuse an id: each run is tracked on its own). */
  begin(id: string, progress: boolean): TrackedRun {
    const controller = new AbortController();
    let runs = this.#byId.get(id);
    if (runs === undefined) {
      runs = new Set();
      this.#byId.set(id, runs);
    }
    runs.add(controller);
    // Cancelled before it began: it begins cancelled, so the host answers and records it unrun.
    if (this.#early.delete(id)) controller.abort();
    let outputBytes = 0;
    let approval: ApprovalWaiting | undefined;
    let ended = false;
    const started = performance.now();
    const report = (): void =>
      this.#report(id, {
        elapsedMs: Math.round(performance.now() - started),
        outputBytes,
        ...(approval === undefined ? {} : { approval }),
      });
    const timer = progress ? setInterval(report, this.#everyMs) : undefined;
    return {
      control: {
        signal: controller.signal,
        ...(progress
          ? {
              onOutputBytes: (seen: number) => {
                outputBytes = seen;
              },
              // A wait for a person is told at once, not at the next tick: the client may be the one
              // who asks that person (an MCP client's elicitation).
              onApprovalWait: (waiting: ApprovalWaiting | undefined) => {
                approval = waiting;
                if (waiting !== undefined && !ended) report();
              },
            }
          : {}),
      },
      end: () => {
        if (ended) return;
        ended = true;
        clearInterval(timer);
        const set = this.#byId.get(id);
        set?.delete(controller);
        if (set?.size === 0) this.#byId.delete(id);
      },
    };
  }

  /**
   * Cancels the runs of request `id` in flight, or, when `queued` says it waits for a slot, the run
   * it will begin; `true` when there was one.
   */
  cancel(id: string, queued: (id: string) => boolean): boolean {
    const runs = this.#byId.get(id);
    if (runs !== undefined) {
      for (const controller of runs) controller.abort();
      return true;
    }
    if (!queued(id)) return false;
    this.#early.add(id);
    return true;
  }

  /** Forgets an early cancel of request `id`, which will never begin (it was answered `busy`). */
  forget(id: string): void {
    this.#early.delete(id);
  }
}
