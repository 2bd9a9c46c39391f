// The apps' bins (apps/loom, apps/cli) bundle every workspace package from its sources. Tests that
// spawn a bin build it first, but only when it is missing or older than a source it bundles: turbo's
// build task may have just written it, and a second tsup run (which empties dist/ first) would pull
// the file from under a test of another package that is spawning it at that moment.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * Builds `<appDir>/dist/<bin>` with the app's tsup config when it is missing or older than the app's
 * sources or any workspace package's sources (`<repoRoot>/packages/<name>/src`).
 */
export function buildBinIfStale(repoRoot: string, appDir: string, bin: string): void {
  const out = join(appDir, 'dist', bin);
  const packages = join(repoRoot, 'packages');
  const sources = [
    join(appDir, 'src'),
    ...readdirSync(packages).map((name) => join(packages, name, 'src')),
  ].filter((dir) => existsSync(dir));
  if (existsSync(out) && statSync(out).mtimeMs >= Math.max(...sources.map(newest))) return;
  execFileSync('pnpm', ['exec', 'tsup', '--silent'], { cwd: appDir, stdio: 'inherit' });
}
