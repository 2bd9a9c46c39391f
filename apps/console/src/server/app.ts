// The console's HTTP app: security in front of everything, the page, then every route module
// (./routes.ts) under /api.
import { Hono } from 'hono';
import { ApiErrorCode } from '../api-errors';
import type { ConsoleContext, ConsoleEnv } from './context';
import { registerMetrics } from './metrics';
import { ROUTE_MODULES } from './routes';
import { securityMiddleware } from './security';
import { registerStatic } from './static';

export interface AppOptions {
  ctx: ConsoleContext;
  /** Where the built page is (default: the package's dist/web). */
  webDir?: string;
  /** The bearer token of GET /metrics (`--metrics-token-file`); none: the path says it is off. */
  metricsToken?: string | undefined;
}

export function createConsoleApp(options: AppOptions): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { sessions, site, passkeys, limiter } = options.ctx;
  // Before the session checks: a scrape job holds the metrics token, never a session.
  registerMetrics(app, options.ctx.store, site, options.metricsToken);
  app.use('*', securityMiddleware({ sessions, site, passkeys, limiter }));
  registerStatic(app, options.webDir);
  const api = new Hono<ConsoleEnv>();
  for (const register of ROUTE_MODULES) register(api, options.ctx);
  api.notFound((c) => c.json({ error: { code: ApiErrorCode.not_found, message: 'no such API route' } }, 404));
  app.route('/api', api);
  app.onError((error, c) => {
    process.stderr.write(`harness console: internal error: ${error.message}\n`);
    return c.json(
      { error: { code: ApiErrorCode.internal, message: 'internal error; the console printed it' } },
      500,
    );
  });
  return app;
}
