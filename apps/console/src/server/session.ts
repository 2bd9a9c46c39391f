// `GET /api/session`: what the page needs to make state-changing requests (its CSRF token), and the
// session's limits. `POST /api/session/logout`: ends the session on the server (its cookie is
// refused from then on) and clears the cookie.
import { deleteCookie } from 'hono/cookie';
import type { LogoutAnswer, SessionAnswer } from '../answers';
import type { RouteModule } from './context';
import { CSRF_HEADER, passkeySignIn, SESSION_COOKIE, sessionRefusal } from './security';

export const sessionRoutes: RouteModule = (api, ctx) => {
  api.get('/session', (c) =>
    c.json({
      csrf: c.get('session')?.csrf ?? null,
      csrfHeader: CSRF_HEADER,
      person: ctx.person,
      instance: ctx.instanceDir,
      authoringConfig: ctx.authoringConfig !== undefined,
      idleMs: ctx.sessions.limits.idleMs,
      lifetimeMs: ctx.sessions.limits.lifetimeMs,
    } satisfies SessionAnswer),
  );

  // A POST, so the security middleware holds it to this page's Origin and CSRF token: another
  // site cannot log the person out.
  api.post('/session/logout', (c) => {
    const id = c.get('session')?.id;
    if (id !== undefined) ctx.sessions.end(id, 'logged_out');
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.json({
      signedOut: true,
      message: sessionRefusal(ctx.sessions, 'logged_out', passkeySignIn(ctx)).message,
    } satisfies LogoutAnswer);
  });
};
