// `test.prop` of @harness/test-utils/property: what every property test of the repository is
// declared with, so its title carries the seed and its predicate receives the generated values.
import { fcRuns, fcSeed } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { afterAll, describe, expect } from 'vitest';

describe('test.prop', () => {
  const seen: [number, string][] = [];
  afterAll(() => {
    // fcRuns(5) runs, each handing the predicate one integer and one string, in that order.
    expect(seen).toHaveLength(fcRuns(5));
    for (const [n, s] of seen) {
      expect(Number.isInteger(n)).toBe(true);
      expect(typeof s).toBe('string');
    }
  });

  test.prop([fc.integer(), fc.string()], { numRuns: fcRuns(5) })(
    'hands each generated tuple to the predicate, one argument per arbitrary',
    (n, s) => {
      seen.push([n, s]);
    },
  );

  test.prop([fc.constant(0)], { numRuns: fcRuns(1) })(
    'names the test with the seed it runs with, the one FC_SEED gives the setup file',
    () => {
      const title = expect.getState().currentTestName ?? '';
      expect(title).toMatch(/ \(with seed=-?\d+\)$/);
      if (process.env.FC_SEED !== 'random') expect(title).toContain(`(with seed=${fcSeed()})`);
    },
  );

  test.prop([fc.integer({ min: 1, max: 9 })], { numRuns: fcRuns(20), seed: 42 })(
    'takes a seed from its parameters over the global one',
    (n) => {
      expect(expect.getState().currentTestName).toContain('(with seed=42)');
      return n >= 1 && n <= 9;
    },
  );
});
