// A call held for approval that waits for a person's decision (a pack's or workspace's
// `approval_wait`; docs/host.md, "Waiting for the decision"). Whoever decides writes the store — a
// console, `harness approvals` in another process, an MCP client through elicitation — so the wait
// reads the approval's row every APPROVAL_POLL_MS until it is decided, the wait (capped at the
// approval's own expiry) is over, or the call is cancelled. An approved call is decided again,
// which consumes the approval exactly as a repeated call would.
import { approveCommand } from '@harness/config/instance';
import type { Store } from '@harness/store';
import type { Decision } from '@harness/workspace';
import type { ApprovalWaiting } from '../command/types';
import { msLeft } from './expiry';

/** How often a waiting call reads its approval's row: 250 ms. */
export const APPROVAL_POLL_MS = 250;

/**
 * How a wait ended: `approved` (the call was decided again with the approval in hand), `denied`,
 * `elapsed` (the wait, or the approval's lifetime, is over with no decision), `cancelled` (the caller
 * cancelled the call) or `closing` (the host stopped waiting for people).
 */
export type WaitEnd = 'approved' | 'denied' | 'elapsed' | 'cancelled' | 'closing';

/** The decision to act on once the wait is over, and how the wait went. */
export interface WaitOutcome {
  readonly decision: Decision;
  readonly end: WaitEnd;
  /** How long the call waited, in ms. */
  readonly waitedMs: number;
}

/** What one wait needs besides the held decision. */
export interface WaitContext {
  readonly store: Pick<Store, 'getApproval'>;
  /** The longest wait, in ms (above 0). */
  readonly waitMs: number;
  /** Runs the gate again: with the approval approved, it takes it (single use). */
  readonly redecide: () => Promise<Decision>;
  /** The instance the approval hint names (none for a backend without one). */
  readonly instanceDir: string | undefined;
  /** Aborted when the caller cancels the call. */
  readonly signal?: AbortSignal | undefined;
  /** Aborted when the host stops waiting for people. */
  readonly ended?: AbortSignal | undefined;
  /** Told the approval waited for when the wait on it begins, and `undefined` once the wait ends. */
  readonly tell?: ((waiting: ApprovalWaiting | undefined) => void) | undefined;
}

/** How the watch of one approval ended. */
type WatchEnd = 'approved' | 'denied' | 'elapsed' | 'cancelled' | 'closing' | 'gone';

/**
 * Waits for a person to decide the approval `held` names, within `ctx.waitMs`. An approval consumed
 * meanwhile by another identical call (single use) leaves this one asking again, in the time left.
 */
export async function waitForPerson(held: Decision, ctx: WaitContext): Promise<WaitOutcome> {
  const started = Date.now();
  const deadline = started + ctx.waitMs;
  let decision = held;
  let told: string | undefined;
  const done = (end: WaitEnd): WaitOutcome => ({ decision, end, waitedMs: Date.now() - started });
  try {
    for (;;) {
      const id = decision.approvalId;
      if (decision.outcome !== 'approval_required' || id === undefined) return done('approved');
      const end = await watchApproval(ctx, id, deadline, (until) => {
        if (told === id) return;
        told = id;
        ctx.tell?.({
          id,
          approve: approveCommand(id, ctx.instanceDir).line,
          waitsUntil: new Date(until).toISOString(),
        });
      });
      if (end !== 'approved' && end !== 'gone') return done(end);
      decision = await ctx.redecide();
    }
  } finally {
    if (told !== undefined) ctx.tell?.(undefined);
  }
}

/** Reads approval `id` until it is decided, gone, or the wait is over; `onPending` before each pause. */
async function watchApproval(
  ctx: WaitContext,
  id: string,
  deadline: number,
  onPending: (until: number) => void,
): Promise<WatchEnd> {
  for (;;) {
    if (ctx.signal?.aborted) return 'cancelled';
    if (ctx.ended?.aborted) return 'closing';
    const record = await ctx.store.getApproval(id);
    if (record?.status === 'approved') return 'approved';
    if (record?.status === 'denied') return 'denied';
    if (record?.status === 'expired') return 'elapsed';
    // Consumed by another identical call, or pruned: this call asks again.
    if (record?.status !== 'pending') return 'gone';
    const now = new Date();
    const until = Math.min(deadline, now.getTime() + msLeft(record, now));
    const left = until - now.getTime();
    if (!(left > 0)) return 'elapsed';
    onPending(until);
    await pause(Math.min(APPROVAL_POLL_MS, left), [ctx.signal, ctx.ended]);
  }
}

/** Resolves after `ms`, or at once when one of `signals` aborts. */
function pause(ms: number, signals: readonly (AbortSignal | undefined)[]): Promise<void> {
  return new Promise((resolve) => {
    const live = signals.filter((s): s is AbortSignal => s !== undefined);
    if (live.some((s) => s.aborted)) return resolve();
    const finish = (): void => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    for (const s of live) s.addEventListener('abort', finish, { once: true });
  });
}
