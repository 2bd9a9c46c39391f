// Who may use the console, and how: the login token that becomes a session cookie, the Host check
// (DNS rebinding), Origin and CSRF on every state-changing request, and the response headers (CSP).
// docs/console.md, "Security", says why each exists.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { ApiErrorCode } from '../api-errors';
import { authority, isLoopback } from './listen';

/** The session cookie's name. */
export const SESSION_COOKIE = 'harness_console';
/** The header the page sends its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
/** The query parameter of the printed URL that carries the login token. */
export const TOKEN_PARAM = 'token';

/** The Content-Security-Policy of every response: scripts, styles and fetches from this origin only. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A random token, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

interface Session {
  csrf: string;
  createdAt: number;
}

/**
 * The sessions of one console. A login token is exchanged for a session: a token the console made
 * itself is single-use; the operator's own (`--token-file`, needed off loopback) may log in again.
 */
export class Sessions {
  private readonly sessions = new Map<string, Session>();
  private readonly oneTime = new Set<string>();

  constructor(private readonly operatorToken: string | undefined) {}

  /** A fresh single-use login token (what the printed URL carries). */
  issueLoginToken(): string {
    const token = newToken();
    this.oneTime.add(token);
    return token;
  }

  /** Exchanges a login token for a new session id; `undefined` when the token is not valid. */
  login(token: string): string | undefined {
    let ok = false;
    for (const t of this.oneTime) {
      if (same(t, token)) {
        this.oneTime.delete(t);
        ok = true;
        break;
      }
    }
    if (!ok && this.operatorToken !== undefined && same(this.operatorToken, token)) ok = true;
    if (!ok) return undefined;
    const id = newToken();
    this.sessions.set(id, { csrf: newToken(), createdAt: Date.now() });
    return id;
  }

  /** The session of a cookie value. */
  get(id: string | undefined): Session | undefined {
    return id === undefined ? undefined : this.sessions.get(id);
  }
}

/** What the security middleware puts on the context for the routes after it. */
export interface SecurityVariables {
  session: { csrf: string } | undefined;
}

function refuse(c: Context, status: 401 | 403 | 421, code: ApiErrorCode, message: string): Response {
  return c.json({ error: { code, message } }, status);
}

/** The Host values a loopback listener answers to. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set([authority(host, port), `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
  return names;
}

/**
 * The middleware in front of every route: headers on every answer; the Host check on a loopback
 * listener; the login exchange (`/?token=…` → cookie, then a redirect that drops the token); a
 * session for everything but the static assets; Origin and CSRF on state-changing requests.
 */
export function securityMiddleware(options: {
  sessions: Sessions;
  listen: { host: string; port: () => number };
}): MiddlewareHandler<{ Variables: SecurityVariables }> {
  const loopback = isLoopback(options.listen.host);
  return async (c, next) => {
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cache-Control', 'no-store');
    const host = c.req.header('host') ?? '';
    if (loopback && !allowedHosts(options.listen.host, options.listen.port()).has(host.toLowerCase())) {
      return refuse(
        c,
        421,
        ApiErrorCode.host_refused,
        'this console listens on loopback and answers only to a loopback Host (127.0.0.1, localhost, [::1])',
      );
    }
    const url = new URL(c.req.url);
    const token = url.searchParams.get(TOKEN_PARAM);
    if (c.req.method === 'GET' && token !== null) {
      const id = options.sessions.login(token);
      if (id === undefined) {
        return c.text(
          'This console link is not valid: a printed link logs in once. Start the console again, or ask it for a new link.\n',
          401,
        );
      }
      setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', path: '/' });
      url.searchParams.delete(TOKEN_PARAM);
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    if (url.pathname.startsWith('/assets/')) return next();
    const session = options.sessions.get(getCookie(c, SESSION_COOKIE));
    if (session === undefined) {
      if (url.pathname.startsWith('/api/')) {
        return refuse(
          c,
          401,
          ApiErrorCode.unauthenticated,
          'no console session: open the link the console printed',
        );
      }
      return c.text('Open the link `harness console` printed (it carries a one-time token).\n', 401);
    }
    if (STATE_CHANGING.has(c.req.method)) {
      const origin = c.req.header('origin');
      if (origin === undefined || origin !== `${url.protocol}//${host}`) {
        return refuse(
          c,
          403,
          ApiErrorCode.forbidden_origin,
          'a state-changing request must come from this page',
        );
      }
      const csrf = c.req.header(CSRF_HEADER);
      if (csrf === undefined || !same(csrf, session.csrf)) {
        return refuse(
          c,
          403,
          ApiErrorCode.csrf_invalid,
          `a state-changing request needs the ${CSRF_HEADER} header`,
        );
      }
    }
    c.set('session', { csrf: session.csrf });
    return next();
  };
}
