import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const app = join(dirname(fileURLToPath(import.meta.url)), '..');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

// The workspace packages the bin bundles: a change in any of them makes dist stale too.
const bundled = ['commands', 'events', 'exec', 'host', 'ifc', 'packs', 'runner', 'signature', 'tmpl'];

/**
 * Builds dist/harness.js with tsup when it is missing or older than its sources (a second or two),
 * and the loom bin it ships with when that is missing, so the tests spawn the real bins.
 */
export function setup(): void {
  const bin = join(app, 'dist', 'harness.js');
  const sources = [join(app, 'src'), ...bundled.map((p) => join(app, '..', '..', 'packages', p, 'src'))];
  const latest = Math.max(...sources.filter((d) => existsSync(d)).map(newest));
  if (!existsSync(bin) || statSync(bin).mtimeMs < latest) {
    execFileSync('pnpm', ['exec', 'tsup', '--silent'], { cwd: app, stdio: 'inherit' });
  }
  const loom = join(app, '..', 'loom');
  if (!existsSync(join(loom, 'dist', 'loom.js'))) {
    execFileSync('pnpm', ['exec', 'tsup', '--silent'], { cwd: loom, stdio: 'inherit' });
  }
}
