// The repository's own files, found by walking it: what the checks read, without git (a fresh
// checkout and an unpacked tarball read the same).
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const SKIP = new Set(['node_modules', 'dist', '.turbo', '.git', 'coverage']);

/** Every file under `dir` (skipping dependencies and build output), as paths relative to `root`, sorted. */
export function listFiles(root: string, dir = root): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (SKIP.has(entry.name)) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(relative(root, path));
    }
  };
  walk(dir);
  return out.sort();
}

/** Every test file (`*.test.ts`) of the workspace packages, relative to `root`. */
export function testFiles(root: string): string[] {
  return ['packages', 'apps', 'tooling']
    .flatMap((top) => listFiles(root, join(root, top)))
    .filter((f) => f.endsWith('.test.ts') && f.split('/').includes('test'));
}

/** The workspace package folder a repository path sits in (`packages/x`), or undefined at the root. */
export function packageDir(path: string): string | undefined {
  const [top, name] = path.split('/');
  return top && name && ['packages', 'apps', 'tooling'].includes(top) ? `${top}/${name}` : undefined;
}
