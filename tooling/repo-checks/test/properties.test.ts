// Every fast-check property runs with the seed FC_SEED names and with FC_RUNS_MULTIPLIER times its
// runs, and is run again with a random seed by `test:properties` (docs/testing.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { packageDir, testFiles } from '../src/files';

const PROPERTY = /\b(?:test|it)\.prop\(|\bfc\.assert\(/;
const propertyFiles = testFiles(repoRoot).filter((f) =>
  PROPERTY.test(readFileSync(join(repoRoot, f), 'utf8')),
);

describe('property tests', () => {
  it('are found (the check is not vacuous)', () => {
    expect(propertyFiles.length).toBeGreaterThanOrEqual(10);
  });

  it.each(propertyFiles)(
    '%s runs with the shared seed, the runs multiplier, and in test:properties',
    (file) => {
      const pkg = packageDir(file)!;
      const config = readFileSync(join(repoRoot, pkg, 'vitest.config.ts'), 'utf8');
      expect(config, `${pkg}/vitest.config.ts must load the fast-check setup`).toContain(
        '@harness/test-utils/fast-check-setup',
      );
      const text = readFileSync(join(repoRoot, file), 'utf8');
      const bare = [...text.matchAll(/numRuns:\s*(?!fcRuns\()[^,}\s]+/g)].map((m) => m[0]);
      expect(bare, 'wrap every numRuns in fcRuns(n) so FC_RUNS_MULTIPLIER reaches it').toEqual([]);
      const scripts = JSON.parse(readFileSync(join(repoRoot, pkg, 'package.json'), 'utf8')).scripts ?? {};
      const local = file.slice(pkg.length + 1);
      expect(scripts['test:properties'] ?? '', `${pkg}'s test:properties must run ${local}`).toContain(local);
    },
  );
});
