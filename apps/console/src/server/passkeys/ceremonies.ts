// The challenges the console handed out and has not seen back yet. Each is single-use and expires;
// taking one removes it, so an assertion sent twice finds nothing the second time.
//
// They are kept apart by who asked. A passkey sign-in (`login/options`) is asked by anyone, before
// any session: those anonymous challenges share one bounded pool, the oldest dropped first. What a
// signed-in session asks for (a passkey's enrolment, the enrolled passkey's signature it first
// needs, a decision's nonce) is kept in that session's own pool, so no flood of anonymous requests
// can push a person's decision nonce out: with one pool for both, 1 000 sign-in requests after the
// nonce evicted it and the person's signed decision failed.
import type { Clock } from '../session-store';

/** How long a handed-out challenge waits for its answer (2 min). */
export const CEREMONY_TTL_MS = 2 * 60_000;
/** Anonymous challenges (passkey sign-ins) waiting at most; the oldest is dropped first. */
export const ANONYMOUS_WAITING_MAX = 1000;
/**
 * Challenges one session may have waiting at most; its own oldest is dropped first. A page asks
 * one at a time; the rate limit (30 at once per session) bounds a session's own flood anyway.
 */
export const SESSION_WAITING_MAX = 32;

/** A challenge handed out without a session: a passkey sign-in. */
export type AnonymousCeremony = { kind: 'login' };

/** A challenge handed out to a signed-in session, kept in that session's pool. */
export type SessionCeremony =
  | { kind: 'register'; label: string }
  | { kind: 'step-up' }
  | { kind: 'decision'; approvalId: string; decision: string; planHash: string }
  | { kind: 'tool-decision'; server: string; tool: string; decision: string; hash: string };

/** One bounded pool of challenges by key, oldest first. */
class Pool<T> {
  private readonly waiting = new Map<string, { ceremony: T; until: number }>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.waiting.size;
  }

  put(key: string, ceremony: T, until: number): void {
    this.waiting.set(key, { ceremony, until });
    if (this.waiting.size > this.max) this.waiting.delete(this.waiting.keys().next().value as string);
  }

  take(key: string, now: number): T | undefined {
    const found = this.waiting.get(key);
    this.waiting.delete(key);
    if (found === undefined || found.until <= now) return undefined;
    return found.ceremony;
  }

  /** Drops what expired; insertion order is expiry order, so it stops at the first live one. */
  sweep(now: number): void {
    for (const [key, { until }] of this.waiting) {
      if (until > now) return;
      this.waiting.delete(key);
    }
  }
}

/** Handed-out challenges: an anonymous pool, and one pool per session. */
export class Ceremonies {
  private readonly anonymous = new Pool<AnonymousCeremony>(ANONYMOUS_WAITING_MAX);
  private readonly bySession = new Map<string, Pool<SessionCeremony>>();

  constructor(private readonly clock: Clock = Date.now) {}

  /** Remembers a challenge handed out now to someone without a session (a passkey sign-in). */
  putAnonymous(key: string, ceremony: AnonymousCeremony): void {
    this.anonymous.put(key, ceremony, this.clock() + CEREMONY_TTL_MS);
  }

  /** Takes an anonymous challenge back once: `undefined` when unknown, used already or expired. */
  takeAnonymous(key: string): AnonymousCeremony | undefined {
    return this.anonymous.take(key, this.clock());
  }

  /** Remembers a challenge handed out now to `sessionId`, in that session's pool. */
  put(sessionId: string, key: string, ceremony: SessionCeremony): void {
    const now = this.clock();
    // Pools of sessions that asked and never came back empty out here, so the map stays bounded.
    for (const [id, pool] of this.bySession) {
      pool.sweep(now);
      if (pool.size === 0) this.bySession.delete(id);
    }
    let pool = this.bySession.get(sessionId);
    if (pool === undefined) {
      pool = new Pool<SessionCeremony>(SESSION_WAITING_MAX);
      this.bySession.set(sessionId, pool);
    }
    pool.put(key, ceremony, now + CEREMONY_TTL_MS);
  }

  /**
   * Takes `sessionId`'s challenge back once: `undefined` when unknown, used already, expired, or
   * handed to another session (it is not in this session's pool, and stays where it is).
   */
  take(sessionId: string, key: string): SessionCeremony | undefined {
    const pool = this.bySession.get(sessionId);
    if (pool === undefined) return undefined;
    const found = pool.take(key, this.clock());
    if (pool.size === 0) this.bySession.delete(sessionId);
    return found;
  }
}
