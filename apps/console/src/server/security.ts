// Who may use the console, and how: the login token that becomes a session cookie, the session's
// expiry checked on every request, the Host check (DNS rebinding), Origin and CSRF on every
// state-changing request, and the response headers (CSP). Only the page's assets and the favicon
// are answered without a session.
// docs/console.md, "Security", says why each exists.
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { ApiErrorCode } from '../api-errors';
import { BACKGROUND_HEADER } from '../wire';
import { authority, isLoopback } from './listen';
import { noticePage, usedLinkNotice } from './notice-page';
import { type SessionEndReason, type Sessions, sameSecret } from './session-store';

/** The session cookie's name. */
export const SESSION_COOKIE = 'harness_console';
/** The header the page sends its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
/** The query parameter of the printed URL that carries the login token. */
export const TOKEN_PARAM = 'token';
/** The icon a browser asks for by itself; answered without a session (./static.ts). */
export const FAVICON = '/favicon.ico';

/** The heading of the page a request without a live session gets, by why there is none. */
const SESSION_TITLES: Record<SessionEndReason | 'unknown', string> = {
  idle: 'Session expired',
  lifetime: 'Session expired',
  logged_out: 'Signed out',
  unknown: 'No console session',
};

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

/** What the security middleware puts on the context for the routes after it. */
export interface SecurityVariables {
  session: { id: string; csrf: string } | undefined;
}

/** A duration as a person reads it: `30 min`, `12 h`, `90 s`. */
export function showDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/**
 * The error answer of a cookie without a live session: `session_expired` for an idle or too old
 * session, else `unauthenticated`; the message says how to log in again.
 */
export function sessionRefusal(
  sessions: Sessions,
  reason: SessionEndReason | 'unknown',
): { code: ApiErrorCode; message: string } {
  const again = sessions.hasOperatorToken
    ? 'open a new login link: `harness console` prints one when it starts, and your operator token logs in again at /?token=<token>'
    : 'open a new login link: `harness console` prints one when it starts (stop it with Ctrl-C and start it again; pending approvals wait in the store)';
  switch (reason) {
    case 'idle':
      return {
        code: ApiErrorCode.session_expired,
        message: `This console session expired: nothing was done in it for ${showDuration(sessions.limits.idleMs)} (the idle limit). To continue, ${again}.`,
      };
    case 'lifetime':
      return {
        code: ApiErrorCode.session_expired,
        message: `This console session expired: it was opened ${showDuration(sessions.limits.lifetimeMs)} ago (a session's lifetime). To continue, ${again}.`,
      };
    case 'logged_out':
      return {
        code: ApiErrorCode.unauthenticated,
        message: `This console session was logged out. To continue, ${again}.`,
      };
    case 'unknown':
      return {
        code: ApiErrorCode.unauthenticated,
        message: `No console session. To continue, ${again}.`,
      };
  }
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
 * listener; the login exchange (`/?token=…` → cookie, then a redirect that drops the token; a
 * link used already gets a page saying how to get a new one, or, in the browser it logged in, the
 * redirect); a live session for everything but the static assets and the favicon, its expiry
 * checked on every request (an expired one is `session_expired`, 401); Origin and CSRF on
 * state-changing requests.
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
        url.searchParams.delete(TOKEN_PARAM);
        // The browser this link logged in is still logged in: the link opens the console again.
        if (options.sessions.check(getCookie(c, SESSION_COOKIE)).ok)
          return c.redirect(`${url.pathname}${url.search}`, 303);
        return c.html(noticePage(usedLinkNotice(options.sessions.hasOperatorToken)), 401);
      }
      // The browser drops the cookie at the session's lifetime too; the server's check is the rule.
      setCookie(c, SESSION_COOKIE, id, {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        maxAge: Math.ceil(options.sessions.limits.lifetimeMs / 1000),
      });
      url.searchParams.delete(TOKEN_PARAM);
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    // The page's assets, and the icon a browser asks for by itself, need no session.
    if (url.pathname.startsWith('/assets/') || url.pathname === FAVICON) return next();
    const cookie = getCookie(c, SESSION_COOKIE);
    // Idle time restarts only on a request the person made: not on the live feed, nor on a refresh
    // the page made by itself after a live update (it marks those), so an unattended page goes idle.
    const active = url.pathname !== '/api/events' && c.req.header(BACKGROUND_HEADER) === undefined;
    const checked = options.sessions.check(cookie);
    if (!checked.ok) {
      if (cookie !== undefined) deleteCookie(c, SESSION_COOKIE, { path: '/' });
      const { code, message } = sessionRefusal(options.sessions, checked.reason);
      if (url.pathname.startsWith('/api/')) return refuse(c, 401, code, message);
      return c.html(noticePage({ title: SESSION_TITLES[checked.reason], paragraphs: [message] }), 401);
    }
    const session = checked.session;
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
      if (csrf === undefined || !sameSecret(csrf, session.csrf)) {
        return refuse(
          c,
          403,
          ApiErrorCode.csrf_invalid,
          `a state-changing request needs the ${CSRF_HEADER} header`,
        );
      }
    }
    // Counted only once the request passed every check: a refused forgery keeps nothing alive.
    if (active) options.sessions.touch(session);
    c.set('session', { id: session.id, csrf: session.csrf });
    return next();
  };
}
