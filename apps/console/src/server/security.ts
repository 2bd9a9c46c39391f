// Who may use the console, and how: the login token that becomes a session cookie, the session's
// expiry checked on every request, the Host check (DNS rebinding), https behind a proxy, Origin and
// CSRF on every state-changing request, the rate limit of logins, and the response headers (CSP).
// Only the page's assets, the favicon and the passkey login are answered without a session.
// docs/console.md, "Security", says why each exists.
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { ApiErrorCode } from '../api-errors';
import { BACKGROUND_HEADER } from '../wire';
import { noticePage, usedLinkNotice } from './notice-page';
import { type ForwardedFacts, readForwarded } from './proxy';
import type { RateLimiter } from './rate-limit';
import { type LoginVia, type SessionEndReason, type Sessions, sameSecret } from './session-store';
import type { Site } from './site';

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
  session: { id: string; csrf: string; via: LoginVia } | undefined;
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
 * session, else `unauthenticated`; the message says how to log in again (with a passkey at
 * `signIn` when the console signs in by passkey only).
 */
export function sessionRefusal(
  sessions: Sessions,
  reason: SessionEndReason | 'unknown',
  signIn?: string,
): { code: ApiErrorCode; message: string } {
  const again =
    signIn !== undefined
      ? `sign in with your passkey at ${signIn}`
      : sessions.hasOperatorToken
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

function refuse(c: Context, status: 401 | 403 | 421 | 429, code: ApiErrorCode, message: string): Response {
  return c.json({ error: { code, message } }, status);
}

/** The paths answered without a session: the passkey login page and its two requests. */
export const LOGIN_PAGE = '/login';
const PUBLIC_POSTS = new Set(['/api/passkeys/login/options', '/api/passkeys/login']);
/** The requests the rate limit counts (beside the token login and the public ones above). */
const LIMITED_POST = /^\/api\/(?:passkeys\/|approvals\/[^/]+\/(?:decision|challenge)$)/;

/**
 * What the proxy in front said about a request (./proxy.ts), or `undefined` when nothing it says
 * counts: no proxy is configured, or the TCP peer is neither loopback nor an address of
 * `--trust-proxy` (a client that reached the listener directly, whatever headers it wrote).
 */
export function trustedForwarded(
  c: Context,
  site: Pick<Site, 'behindProxy' | 'trusts'>,
): ForwardedFacts | undefined {
  if (!site.behindProxy || !site.trusts(getConnInfo(c).remote.address)) return undefined;
  return readForwarded((name) => c.req.header(name));
}

/**
 * The address a request came from: the TCP peer's, or behind a trusted proxy the client address it
 * added (the last of `X-Forwarded-For`, whatever a client wrote before it).
 */
export function clientAddress(c: Context, site: Pick<Site, 'behindProxy' | 'trusts'>): string {
  const connected = getConnInfo(c).remote.address ?? 'unknown';
  return trustedForwarded(c, site)?.client ?? connected;
}

/** Whether a request reached the console over https: its own TLS, else what a trusted proxy says. */
export function cameOverHttps(c: Context, site: Pick<Site, 'tls' | 'behindProxy' | 'trusts'>): boolean {
  if (site.tls === 'self') return true;
  return trustedForwarded(c, site)?.proto === 'https';
}

/**
 * A redirect target of this console: a path of its own origin. A path that a browser would read as
 * another host (`//evil.example/`, `/\evil.example/`) or that is no absolute path becomes `/`.
 */
export function sameOriginPath(path: string): string {
  // A browser reads a backslash as a slash: `/\host` is `//host` to it.
  return !path.startsWith('/') || path.startsWith('//') || path.includes('\\') ? '/' : path;
}

/** What a request is counted under by the rate limit: its live session, else its client address. */
export function clientKey(c: Context, options: Pick<SecurityOptions, 'sessions' | 'site'>): string {
  const checked = options.sessions.check(getCookie(c, SESSION_COOKIE));
  if (checked.ok) return `session:${checked.session.id}`;
  return `address:${clientAddress(c, options.site)}`;
}

/** Takes one request from the key's budget; the 429 answer when it is spent. */
export function rateLimited(
  c: Context,
  options: Pick<SecurityOptions, 'limiter' | 'sessions' | 'site'>,
): Response | undefined {
  const decision = options.limiter.take(clientKey(c, options));
  if (decision.ok) return undefined;
  c.header('Retry-After', String(decision.retryAfterS));
  return refuse(
    c,
    429,
    ApiErrorCode.rate_limited,
    `too many login, passkey or decision requests in a short time; wait ${decision.retryAfterS} s and try again`,
  );
}

/** The session cookie, `Secure` when the console is reached over https. */
export function setSessionCookie(c: Context, options: SecurityOptions, id: string): void {
  // The browser drops the cookie at the session's lifetime too; the server's check is the rule.
  setCookie(c, SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    secure: options.site.origin().startsWith('https:'),
    maxAge: Math.ceil(options.sessions.limits.lifetimeMs / 1000),
  });
}

/** What the security middleware is given. */
export interface SecurityOptions {
  sessions: Sessions;
  site: Site;
  /** How many passkeys are enrolled: on an exposed console, one means logins are by passkey only. */
  passkeys: { count(): number };
  limiter: RateLimiter;
}

/** Whether a token may still log in: always on loopback, elsewhere until the first passkey. */
export function passkeyOnly(options: Pick<SecurityOptions, 'site' | 'passkeys'>): boolean {
  return options.site.exposed && options.passkeys.count() > 0;
}

/** Where a person signs in again with a passkey, when that is the only way; else `undefined`. */
export function passkeySignIn(options: Pick<SecurityOptions, 'site' | 'passkeys'>): string | undefined {
  return passkeyOnly(options) ? `${options.site.origin()}${LOGIN_PAGE}` : undefined;
}

/**
 * The checks before any session (and before `/metrics`' token): the Host, and behind a TLS proxy,
 * that the request came over https as a trusted peer says.
 */
export function transportRefusal(c: Context, site: Site, host: string): Response | undefined {
  const hosts = site.hosts();
  if (hosts !== undefined && !hosts.has(host.toLowerCase())) {
    return refuse(
      c,
      421,
      ApiErrorCode.host_refused,
      site.publicOrigin === undefined
        ? 'this console listens on loopback and answers only to a loopback Host (127.0.0.1, localhost, [::1])'
        : `this console answers only to ${site.publicOrigin}; a reverse proxy in front of it must pass the Host header (nginx: proxy_set_header Host $host)`,
    );
  }
  if (site.tls === 'proxy' && !cameOverHttps(c, site)) {
    return refuse(
      c,
      403,
      ApiErrorCode.https_required,
      `this console is served over https by a reverse proxy (${site.publicOrigin}); open it there. A proxy in front of it must connect from loopback or an address given with --trust-proxy, and send X-Forwarded-Proto: https`,
    );
  }
  return undefined;
}

/** A state-changing request must carry the Origin its Host is reached at. */
function originRefusal(c: Context, site: Site, host: string): Response | undefined {
  const expected =
    site.publicOrigin !== undefined
      ? site.publicOrigin
      : `${site.tls === 'self' ? 'https' : 'http'}://${host.toLowerCase()}`;
  if (c.req.header('origin') !== expected) {
    return refuse(
      c,
      403,
      ApiErrorCode.forbidden_origin,
      `a state-changing request must come from this console's page (${expected}); open the console there`,
    );
  }
  return undefined;
}

/**
 * The middleware in front of every route: headers on every answer; the Host check (loopback
 * names on a loopback listener, the public URL's host behind a proxy); behind a TLS proxy, that the
 * request came over https; the login exchange (`/?token=…` → cookie, then a redirect that drops the
 * token; a link used already gets a page saying how to get a new one, or, in the browser it logged
 * in, the redirect; on an exposed console with a passkey enrolled, a passkey only); a live session
 * for everything but the static assets, the favicon and the passkey login, its expiry checked on
 * every request (an expired one is `session_expired`, 401); Origin and CSRF on state-changing
 * requests.
 */
export function securityMiddleware(
  options: SecurityOptions,
): MiddlewareHandler<{ Variables: SecurityVariables }> {
  const https = () => options.site.origin().startsWith('https:');
  return async (c, next) => {
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cache-Control', 'no-store');
    if (https()) c.header('Strict-Transport-Security', 'max-age=31536000');
    const host = c.req.header('host') ?? '';
    const transport = transportRefusal(c, options.site, host);
    if (transport !== undefined) return transport;
    const url = new URL(c.req.url);
    const token = url.searchParams.get(TOKEN_PARAM);
    if (c.req.method === 'GET' && token !== null) return tokenLogin(c, options, url, token);
    // The page's assets, and the icon a browser asks for by itself, need no session.
    if (url.pathname.startsWith('/assets/') || url.pathname === FAVICON) return next();
    if (c.req.method === 'GET' && url.pathname === LOGIN_PAGE) return next();
    if (c.req.method === 'POST' && PUBLIC_POSTS.has(url.pathname)) {
      return originRefusal(c, options.site, host) ?? rateLimited(c, options) ?? next();
    }
    const cookie = getCookie(c, SESSION_COOKIE);
    // Idle time restarts only on a request the person made: not on the live feed, nor on a refresh
    // the page made by itself after a live update (it marks those), so an unattended page goes idle.
    const active = url.pathname !== '/api/events' && c.req.header(BACKGROUND_HEADER) === undefined;
    const checked = options.sessions.check(cookie);
    if (!checked.ok) {
      if (cookie !== undefined) deleteCookie(c, SESSION_COOKIE, { path: '/' });
      const { code, message } = sessionRefusal(options.sessions, checked.reason, passkeySignIn(options));
      if (url.pathname.startsWith('/api/')) return refuse(c, 401, code, message);
      // Where a passkey can sign in, the page's address leads to it (the fragment stays with the browser).
      if (options.passkeys.count() > 0 && checked.reason === 'unknown') return c.redirect(LOGIN_PAGE, 303);
      return c.html(noticePage({ title: SESSION_TITLES[checked.reason], paragraphs: [message] }), 401);
    }
    const session = checked.session;
    if (STATE_CHANGING.has(c.req.method)) {
      const refused = originRefusal(c, options.site, host);
      if (refused !== undefined) return refused;
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
    if (c.req.method === 'POST' && LIMITED_POST.test(url.pathname)) {
      const limited = rateLimited(c, options);
      if (limited !== undefined) return limited;
    }
    // Counted only once the request passed every check: a refused forgery keeps nothing alive.
    if (active) options.sessions.touch(session);
    c.set('session', { id: session.id, csrf: session.csrf, via: session.via });
    return next();
  };
}

/** `GET /?token=…`: a login token exchanged for a session cookie, then a redirect without it. */
function tokenLogin(c: Context, options: SecurityOptions, url: URL, token: string): Response {
  const limited = rateLimited(c, options);
  if (limited !== undefined) return limited;
  url.searchParams.delete(TOKEN_PARAM);
  if (passkeyOnly(options)) {
    if (options.sessions.check(getCookie(c, SESSION_COOKIE)).ok)
      return c.redirect(sameOriginPath(`${url.pathname}${url.search}`), 303);
    return c.html(
      noticePage({
        title: 'Sign in with a passkey',
        paragraphs: [
          `This console is reached from other machines and has a passkey enrolled, so a login link no longer signs in here. Sign in with your passkey at ${passkeySignIn(options)}.`,
        ],
      }),
      403,
    );
  }
  const id = options.sessions.login(token);
  if (id === undefined) {
    // The browser this link logged in is still logged in: the link opens the console again.
    if (options.sessions.check(getCookie(c, SESSION_COOKIE)).ok)
      return c.redirect(sameOriginPath(`${url.pathname}${url.search}`), 303);
    return c.html(noticePage(usedLinkNotice(options.sessions.hasOperatorToken)), 401);
  }
  setSessionCookie(c, options, id);
  return c.redirect(sameOriginPath(`${url.pathname}${url.search}`), 303);
}
