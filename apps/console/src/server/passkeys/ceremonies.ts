// The challenges the console handed out and has not seen back yet: a passkey's enrolment (and the
// existing passkey's signature it first needs on an exposed console), a passkey login, and a
// decision's nonce. Each is single-use and expires; taking one removes it, so
// an assertion sent twice finds nothing the second time.
import type { Clock } from '../session-store';

/** How long a handed-out challenge waits for its answer (2 min). */
export const CEREMONY_TTL_MS = 2 * 60_000;
/** Challenges waiting at most; the oldest is dropped first. */
const WAITING_MAX = 1000;

/** What a challenge was handed out for. */
export type Ceremony =
  | { kind: 'register'; sessionId: string; label: string }
  | { kind: 'login' }
  | { kind: 'step-up'; sessionId: string }
  | { kind: 'decision'; sessionId: string; approvalId: string; decision: string; planHash: string };

/** Handed-out challenges by key (the challenge, or a decision's nonce). */
export class Ceremonies {
  private readonly waiting = new Map<string, { ceremony: Ceremony; until: number }>();

  constructor(private readonly clock: Clock = Date.now) {}

  /** Remembers a challenge handed out now. */
  put(key: string, ceremony: Ceremony): void {
    this.waiting.set(key, { ceremony, until: this.clock() + CEREMONY_TTL_MS });
    if (this.waiting.size > WAITING_MAX) this.waiting.delete(this.waiting.keys().next().value as string);
  }

  /** Takes a challenge back once: `undefined` when unknown, used already or expired. */
  take(key: string): Ceremony | undefined {
    const found = this.waiting.get(key);
    this.waiting.delete(key);
    if (found === undefined || found.until <= this.clock()) return undefined;
    return found.ceremony;
  }
}
