// The tree has no import circle, inside a package or between packages, and no source function over
// MAX_FUNCTION_LINES lines (docs/contributing.md, "Structure"). Each check is first shown to catch
// what it forbids, on a small tree written for the purpose.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { circles, importGraphs, longFunctions, MAX_FUNCTION_LINES, sourceFiles } from '../src/structure';

const scratch = mkdtempSync(join(tmpdir(), 'structure-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(scratch, 'tree-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const pkg = (name: string) => JSON.stringify({ name });

describe('the structure checks', () => {
  it('find a circle of type-only imports inside a package, through an index and a .js suffix', () => {
    const root = tree({
      'packages/a/package.json': pkg('@harness/a'),
      'packages/a/src/notify.ts': "import type { T } from './load/index.js';\nexport type N = T;\n",
      'packages/a/src/load/index.ts': "export type { T } from '../schema';\n",
      'packages/a/src/schema.ts': "import { n } from './notify';\nexport type T = typeof n;\n",
      'packages/a/src/leaf.ts': "import './schema';\n",
    });
    const { modules } = importGraphs(root, sourceFiles(root));
    expect(circles(modules)).toEqual([
      ['packages/a/src/load/index.ts', 'packages/a/src/notify.ts', 'packages/a/src/schema.ts'],
    ]);
  });

  it('find a circle between packages, through a subpath export and a dynamic import', () => {
    const root = tree({
      'packages/a/package.json': pkg('@harness/a'),
      'packages/a/src/index.ts': "export { b } from '@harness/b/extra';\n",
      'packages/b/package.json': pkg('@harness/b'),
      'packages/b/src/index.ts': "export const load = () => import('@harness/a');\n",
      'packages/c/package.json': pkg('@harness/c'),
      'packages/c/src/index.ts': "import '@harness/a';\nimport 'zod';\n",
    });
    const { packages } = importGraphs(root, sourceFiles(root));
    expect(circles(packages)).toEqual([['@harness/a', '@harness/b']]);
  });

  it('find a function over the limit, by the name it is known by, and not one at the limit', () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const root = tree({
      'packages/a/package.json': pkg('@harness/a'),
      'packages/a/src/long.ts': [
        `export function atLimit() {\n${body(MAX_FUNCTION_LINES)}\n}`,
        `export const tooLong = () => {\n${body(MAX_FUNCTION_LINES + 1)}\n};`,
      ].join('\n'),
    });
    expect(longFunctions(root, 'packages/a/src/long.ts')).toEqual([
      {
        file: 'packages/a/src/long.ts',
        line: MAX_FUNCTION_LINES + 1,
        name: 'tooLong',
        lines: MAX_FUNCTION_LINES + 1,
      },
    ]);
  });
});

describe('the repository', () => {
  const files = sourceFiles(repoRoot);
  const { modules, packages } = importGraphs(repoRoot, files);

  it('is read whole (the checks are not vacuous)', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(packages.get('@harness/host')?.has('@harness/protocol')).toBe(true);
  });

  it('has no import circle inside a package', () => {
    expect(circles(modules)).toEqual([]);
  });

  it('has no import circle between packages', () => {
    expect(circles(packages)).toEqual([]);
  });

  it(`has no source function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap((f) => longFunctions(repoRoot, f));
    expect(long.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).toEqual([]);
  });
});
