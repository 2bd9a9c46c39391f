// Builds the page into dist/web: one ES module bundle (Preact and the views), one stylesheet, and
// index.html. esbuild is the bundler (see docs/console.md, "Libraries").
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const final = join(root, 'dist', 'web');
// Built beside, then put in place in one rename: a console another task or test is serving from
// dist/web never finds it half written or gone for the length of a build.
const out = join(root, 'dist', `web.building-${process.pid}`);
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
await build({
  entryPoints: { app: join(root, 'src', 'web', 'main.tsx') },
  outdir: join(out, 'assets'),
  bundle: true,
  format: 'esm',
  minify: true,
  sourcemap: false,
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
await build({
  entryPoints: { app: join(root, 'src', 'web', 'style.css') },
  outdir: join(out, 'assets'),
  bundle: true,
  minify: true,
  logLevel: 'warning',
});
copyFileSync(join(root, 'src', 'web', 'index.html'), join(out, 'index.html'));
const old = join(root, 'dist', `web.old-${process.pid}`);
rmSync(old, { recursive: true, force: true });
try {
  renameSync(final, old);
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
renameSync(out, final);
rmSync(old, { recursive: true, force: true });
