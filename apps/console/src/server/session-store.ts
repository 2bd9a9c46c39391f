// The console's sessions: a login token exchanged for a session id (the cookie's value), and each
// session's end: idle too long, older than its lifetime, or logged out. Time is read from a clock,
// so a test moves it instead of waiting (docs/console.md, "Sessions").
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A session nobody used for this long ends (30 min). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** A session ends this long after its login however much it is used (12 h). */
export const DEFAULT_SESSION_LIFETIME_MS = 12 * 3_600_000;

/** Ended sessions remembered, so their cookie is told why (the oldest forgotten first). */
const ENDED_REMEMBERED = 1000;

/** Milliseconds since the epoch: `Date.now`, unless a test moves time itself. */
export type Clock = () => number;

/** How long a session may last. */
export interface SessionLimits {
  /** Without a request the person made for this long, the session ends. */
  readonly idleMs: number;
  /** This long after login the session ends, used or not. */
  readonly lifetimeMs: number;
}

/** Why a session ended. */
export type SessionEndReason = 'idle' | 'lifetime' | 'logged_out';

/** How a session logged in: a printed single-use link, the operator's token, or a passkey. */
export type LoginVia = 'link' | 'operator' | 'passkey';

/** One logged-in browser. */
export interface Session {
  readonly id: string;
  readonly via: LoginVia;
  readonly csrf: string;
  readonly createdAt: number;
  lastActiveAt: number;
}

/** A cookie value checked: its live session, or why there is none (`unknown`: never one, or forgotten). */
export type SessionCheck =
  | { ok: true; session: Session }
  | { ok: false; reason: SessionEndReason | 'unknown' };

/** A random token, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The sessions of one console. A login token is exchanged for a session: a token the console made
 * itself is single-use; the operator's own (`--token-file`, needed off loopback) may log in again.
 * A session ends when it is idle for `idleMs`, `lifetimeMs` after its login, or at logout; an ended
 * session is removed, and listeners of its end (the live feed) are told.
 */
export class Sessions {
  private readonly sessions = new Map<string, Session>();
  private readonly ended = new Map<string, SessionEndReason>();
  private readonly endListeners = new Map<string, Set<() => void>>();
  private readonly oneTime = new Set<string>();

  constructor(
    private readonly operatorToken: string | undefined,
    readonly limits: SessionLimits = {
      idleMs: DEFAULT_SESSION_IDLE_MS,
      lifetimeMs: DEFAULT_SESSION_LIFETIME_MS,
    },
    private readonly clock: Clock = Date.now,
  ) {}

  /** Whether an operator token may log in (again), beside the printed single-use links. */
  get hasOperatorToken(): boolean {
    return this.operatorToken !== undefined;
  }

  /** A fresh single-use login token (what the printed URL carries). */
  issueLoginToken(): string {
    const token = newToken();
    this.oneTime.add(token);
    return token;
  }

  /** Exchanges a login token for a new session id; `undefined` when the token is not valid. */
  login(token: string): string | undefined {
    let via: LoginVia | undefined;
    for (const t of this.oneTime) {
      if (sameSecret(t, token)) {
        this.oneTime.delete(t);
        via = 'link';
        break;
      }
    }
    if (via === undefined && this.operatorToken !== undefined && sameSecret(this.operatorToken, token))
      via = 'operator';
    return via === undefined ? undefined : this.open(via);
  }

  /** Opens a session for a login already checked (a token here, or a passkey's assertion); its id. */
  open(via: LoginVia): string {
    // Sessions whose cookie never came back are ended here, so the map stays bounded.
    this.sweep();
    const id = newToken();
    const now = this.clock();
    this.sessions.set(id, { id, via, csrf: newToken(), createdAt: now, lastActiveAt: now });
    return id;
  }

  /** Checks a cookie value now: a session past a limit ends here. */
  check(id: string | undefined): SessionCheck {
    if (id === undefined) return { ok: false, reason: 'unknown' };
    const session = this.sessions.get(id);
    if (session === undefined) return { ok: false, reason: this.ended.get(id) ?? 'unknown' };
    const now = this.clock();
    const reason = this.expiry(session, now);
    if (reason !== undefined) {
      this.end(id, reason);
      return { ok: false, reason };
    }
    return { ok: true, session };
  }

  /**
   * Restarts a live session's idle time: a request the person made. The live feed and the page's
   * own refreshes do not, so an unattended page goes idle.
   */
  touch(session: Session): void {
    if (this.sessions.get(session.id) === session) session.lastActiveAt = this.clock();
  }

  /** Ends a session now (logout): its cookie is refused from here on. */
  end(id: string, reason: SessionEndReason): void {
    if (!this.sessions.delete(id)) return;
    this.ended.set(id, reason);
    if (this.ended.size > ENDED_REMEMBERED) this.ended.delete(this.ended.keys().next().value as string);
    const listeners = this.endListeners.get(id);
    this.endListeners.delete(id);
    for (const listener of listeners ?? []) listener();
  }

  /** Calls `listener` once when the session ends; returns the function that stops listening. */
  onEnd(id: string, listener: () => void): () => void {
    let set = this.endListeners.get(id);
    if (set === undefined) {
      set = new Set();
      this.endListeners.set(id, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.endListeners.get(id) === set) this.endListeners.delete(id);
    };
  }

  /** Ends every session past a limit now. */
  sweep(): void {
    const now = this.clock();
    for (const session of [...this.sessions.values()]) {
      const reason = this.expiry(session, now);
      if (reason !== undefined) this.end(session.id, reason);
    }
  }

  private expiry(session: Session, now: number): 'idle' | 'lifetime' | undefined {
    if (now - session.createdAt >= this.limits.lifetimeMs) return 'lifetime';
    if (now - session.lastActiveAt >= this.limits.idleMs) return 'idle';
    return undefined;
  }
}
