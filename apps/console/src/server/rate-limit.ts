// A token bucket per key (a session, else a client address) in front of the login, passkey and
// decision endpoints: a burst is allowed, a steady stream is slowed to the refill rate, and a key
// over its budget is answered 429 `rate_limited` with Retry-After (docs/console.md, "Security").
import type { Clock } from './session-store';

/** Requests a key may make at once (a person deciding a queue makes two per decision). */
export const RATE_BURST = 30;
/** One more request allowed every this many ms (30 a minute once the burst is spent). */
export const RATE_REFILL_MS = 2_000;
/** Keys remembered at most; the least recently seen is forgotten first (it starts full again). */
const KEYS_REMEMBERED = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** What a request is told: go ahead, or wait this many seconds. */
export type RateDecision = { ok: true } | { ok: false; retryAfterS: number };

/** Token buckets by key. */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly burst = RATE_BURST,
    private readonly refillMs = RATE_REFILL_MS,
    private readonly clock: Clock = Date.now,
  ) {}

  /** Takes one token from `key`'s bucket, refilled for the time since it was last seen. */
  take(key: string): RateDecision {
    const now = this.clock();
    const seen = this.buckets.get(key);
    const tokens = Math.min(
      this.burst,
      seen === undefined ? this.burst : seen.tokens + (now - seen.at) / this.refillMs,
    );
    this.buckets.delete(key);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return { ok: false, retryAfterS: Math.ceil(((1 - tokens) * this.refillMs) / 1000) };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > KEYS_REMEMBERED) this.buckets.delete(this.buckets.keys().next().value as string);
    return { ok: true };
  }
}
