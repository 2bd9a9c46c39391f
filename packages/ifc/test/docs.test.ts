// Runs the worked example in docs/labels.md and checks each `// →` comment against what it printed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import * as ifc from '../src/index';

const page = readFileSync(join(repoRoot, 'docs', 'labels.md'), 'utf8');
const example = page.slice(page.indexOf('## Worked example')).match(/```ts\n([\s\S]*?)```/)?.[1] ?? '';

describe('docs/labels.md', () => {
  it('has a worked example that imports only @harness/ifc', () => {
    expect(example).toContain("from '@harness/ifc'");
    expect([...example.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1])).toEqual(['@harness/ifc']);
  });

  it('prints what its comments say', () => {
    const printed: string[] = [];
    const fakeConsole = {
      log: (...args: unknown[]) => printed.push(args.map((a) => JSON.stringify(a)).join(' ')),
    };
    const body = example.replace(/^import (\{[^}]*\}) from '@harness\/ifc';$/m, 'const $1 = ifc;');
    new Function('ifc', 'console', body)(ifc, fakeConsole);
    const expected = [...example.matchAll(/\/\/ → (.*)$/gm)].map((m) => m[1]);
    expect(expected.length).toBeGreaterThan(5);
    expect(printed).toEqual(expected);
  });
});
