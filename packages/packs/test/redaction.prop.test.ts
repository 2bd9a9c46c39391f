// Redaction at the output cut must not be an oracle: a model that prints its guesses where the
// output is cut must learn nothing from the answer about whether a guess matched a piece of a
// secret. Property tests compare the redacted output for matching and non-matching guesses.

import { truncationMarker } from '@harness/exec';
import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect } from 'vitest';
import { redact } from '../src/credentials';

const SECRET = 'ghp_Zx81Qw3Er5Ty7Ui9Op2As4Df6Gh8Jk0Lm1Nb';
const alphabet = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. \n');
const text = fc.string({ unit: alphabet, maxLength: 120 });

/** A string of `k` characters that is neither a prefix nor a suffix of the secret. */
const decoyOf = (k: number, seed: string): string => {
  let d = (seed + 'q'.repeat(k)).slice(0, k);
  while (SECRET.startsWith(d) || SECRET.endsWith(d)) d = `~${d.slice(1)}`;
  return d;
};

describe('redaction at the cut is not an oracle [SEC-2]', () => {
  test.prop([text, text, fc.integer({ min: 1, max: SECRET.length - 1 }), fc.nat(500)], {
    numRuns: fcRuns(400),
  })(
    'a prefix of the secret before the cut and a decoy of the same length give the same output',
    (head, tail, k, dropped) => {
      const out = (guess: string) =>
        redact(`${head}${guess}${truncationMarker(dropped + 1)}${tail}`, [SECRET, 'short-one'], true);
      expect(out(SECRET.slice(0, k))).toBe(out(decoyOf(k, tail)));
    },
  );

  test.prop([text, text, fc.integer({ min: 1, max: SECRET.length - 1 }), fc.nat(500)], {
    numRuns: fcRuns(400),
  })(
    'a suffix of the secret after the cut and a decoy of the same length give the same output',
    (head, tail, k, dropped) => {
      const out = (guess: string) =>
        redact(`${head}${truncationMarker(dropped + 1)}${guess}${tail}`, [SECRET], true);
      expect(out(SECRET.slice(SECRET.length - k))).toBe(out(decoyOf(k, head)));
    },
  );

  test.prop([text, fc.integer({ min: 1, max: SECRET.length - 1 })], { numRuns: fcRuns(400) })(
    'a prefix at the very end of truncated output (killed mid-write) and a decoy give the same output',
    (head, k) => {
      const out = (guess: string) => redact(`${head}${guess}`, [SECRET], true);
      const matching = out(SECRET.slice(0, k));
      expect(matching).toBe(out(decoyOf(k, head)));
      expect(matching).not.toContain('[redacted]');
    },
  );

  test.prop([text, text, fc.nat(500)], { numRuns: fcRuns(50) })(
    'no piece of four or more characters of the secret survives next to a cut',
    (head, tail, dropped) => {
      for (let k = 4; k < SECRET.length; k++) {
        const shown = redact(
          `${head}${SECRET.slice(0, k)}${truncationMarker(dropped + 1)}${SECRET.slice(k)}${tail}`,
          [SECRET],
          true,
        );
        for (let i = 0; i + 4 <= SECRET.length; i++) expect(shown).not.toContain(SECRET.slice(i, i + 4));
      }
    },
  );
});
