import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly the pinned names', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'CodedError',
      'defineCodes',
      'describeFound',
      'editDistance',
      'formatIssue',
      'showPath',
      'valueAt',
    ]);
  });

  it('depends on nothing, so every package can build on it without a cycle', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
  });
});
