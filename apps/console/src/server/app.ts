// The console's HTTP app: security in front of everything, the page, then every route module
// (./routes.ts) under /api.
import { Hono } from 'hono';
import { ApiErrorCode } from '../api-errors';
import type { ConsoleContext, ConsoleEnv } from './context';
import { ROUTE_MODULES } from './routes';
import { securityMiddleware } from './security';
import { registerStatic } from './static';

export interface AppOptions {
  ctx: ConsoleContext;
  listen: { host: string; port: () => number };
  /** Where the built page is (default: the package's dist/web). */
  webDir?: string;
}

export function createConsoleApp(options: AppOptions): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.use('*', securityMiddleware({ sessions: options.ctx.sessions, listen: options.listen }));
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
