import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect } from 'vitest';
import { run } from '../src/index';
import { env } from './helpers';

// Strings of whole Unicode code points (no lone surrogates, which have no UTF-8 form) without NUL,
// which no process argument can hold.
const argument = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0'));

describe('argv integrity for arbitrary strings [CP-33]', () => {
  test.prop([fc.array(argument, { minLength: 1, maxLength: 6 })], { numRuns: fcRuns(50) })(
    'arbitrary argv strings without NUL round-trip through a real process [CP-33]',
    async (args) => {
      // printf's format comes first, so an argument starting with "-" is data, and %s (unlike %b)
      // never interprets it.
      const r = await run({ argv: ['printf', '%s\\0', ...args], env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.split('\0').slice(0, -1)).toEqual(args);
    },
  );
});
