// `GET /api/session`: what the page needs to make state-changing requests (its CSRF token).
import type { RouteModule } from './context';
import { CSRF_HEADER } from './security';

export const sessionRoutes: RouteModule = (api, ctx) => {
  api.get('/session', (c) =>
    c.json({
      csrf: c.get('session')?.csrf ?? null,
      csrfHeader: CSRF_HEADER,
      person: ctx.person,
      instance: ctx.instanceDir,
      authoringConfig: ctx.authoringConfig !== undefined,
    }),
  );
};
