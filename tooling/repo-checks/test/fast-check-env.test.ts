import { FC_DEFAULT_SEED, fcRuns, fcSeed } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';

describe('FC_SEED', () => {
  it('defaults to the fixed seed, so a plain run checks the same cases every time', () => {
    expect(fcSeed({})).toBe(FC_DEFAULT_SEED);
    expect(fcSeed({ FC_SEED: ' ' })).toBe(FC_DEFAULT_SEED);
  });

  it('takes an integer seed as given, negative ones included', () => {
    expect(fcSeed({ FC_SEED: '-45145375' })).toBe(-45145375);
  });

  it('draws a 32-bit seed for random', () => {
    const seed = fcSeed({ FC_SEED: 'random' });
    expect(Number.isInteger(seed)).toBe(true);
    expect(seed | 0).toBe(seed);
  });

  it('refuses anything else, naming the value', () => {
    expect(() => fcSeed({ FC_SEED: '12abc' })).toThrowErrorMatchingInlineSnapshot(
      `[Error: FC_SEED must be an integer or "random"; found "12abc"]`,
    );
  });
});

describe('FC_RUNS_MULTIPLIER', () => {
  it('multiplies the runs, and leaves them alone when unset', () => {
    expect(fcRuns(300, {})).toBe(300);
    expect(fcRuns(300, { FC_RUNS_MULTIPLIER: '50' })).toBe(15_000);
  });

  it('refuses zero, negatives and fractions, naming the value', () => {
    for (const v of ['0', '-2', '1.5']) expect(() => fcRuns(1, { FC_RUNS_MULTIPLIER: v })).toThrow(v);
  });
});
