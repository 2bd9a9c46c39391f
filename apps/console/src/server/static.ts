// The page: index.html and its assets, built by scripts/build-web.mjs into the package's dist/web.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import type { Hono } from 'hono';
import type { ConsoleEnv } from './context';
import { ConsoleError, ConsoleErrorCode } from './errors';
import { FAVICON, LOGIN_PAGE } from './security';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/** Where the built page lives: `dist/web` of the `@harness/console` package. */
export function webDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@harness/console/package.json')), 'dist', 'web');
}

/** Registers `/` (the page, also at `/login`), `/assets/*` (read once into memory) and `/favicon.ico` (none). */
export function registerStatic(app: Hono<ConsoleEnv>, dir = webDir()): void {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) {
    throw new ConsoleError(
      ConsoleErrorCode.page_missing,
      `the console's page is not built (${index} is missing); run \`pnpm build\` in the repository first`,
    );
  }
  const html = readFileSync(index);
  const assets = new Map<string, Buffer>();
  const assetDir = join(dir, 'assets');
  for (const name of existsSync(assetDir) ? readdirSync(assetDir) : []) {
    assets.set(name, readFileSync(join(assetDir, name)));
  }
  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    const body = assets.get(name);
    if (body === undefined) return c.text('not found\n', 404);
    c.header('Content-Type', TYPES[extname(name)] ?? 'application/octet-stream');
    return c.body(new Uint8Array(body));
  });
  // No icon of its own: an empty answer keeps the browser from asking again, and from logging a 401.
  app.get(FAVICON, (c) => c.body(null, 204));
  // The passkey login is the same page: it shows the sign-in at this path.
  for (const path of ['/', LOGIN_PAGE]) {
    app.get(path, (c) => {
      c.header('Content-Type', TYPES['.html']);
      return c.body(new Uint8Array(html));
    });
  }
}
