// Builds the page into dist/web: one ES module bundle (Preact and the views), one stylesheet, and
// index.html. esbuild is the bundler (see docs/console.md, "Libraries").
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
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
