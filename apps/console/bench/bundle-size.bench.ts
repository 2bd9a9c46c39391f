// The page's JavaScript, gzipped, beside Preact's own module gzipped (the anchor: the smallest page
// this stack can ship). Target: the bundle at most 200 KB gzipped.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { writeResult } from '@harness/bench-utils';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(process.execPath, [join(app, 'scripts', 'build-web.mjs')], { stdio: 'inherit' });
const gz = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;
const bundle = gz(join(app, 'dist', 'web', 'assets', 'app.js'));
const require = createRequire(import.meta.url);
const preact = gz(join(dirname(require.resolve('preact/package.json')), 'dist', 'preact.mjs'));
writeResult('console-bundle-size', {
  unit: 'bytes gzipped',
  subject: { label: 'dist/web/assets/app.js (every view, Preact included)', median: bundle },
  anchor: { label: 'preact/dist/preact.mjs alone', median: preact },
  ratio: bundle / preact,
  target: { subjectBytesAtMost: 200 * 1024 },
  pass: bundle <= 200 * 1024,
});
