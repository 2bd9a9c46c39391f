import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect } from 'vitest';
import { parseDuration, RETENTION_WINDOW, utf8Length } from '../src/index';
import { parseYamlConfig } from '../src/yaml';

const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)); // lone surrogates too

describe('utf8Length', () => {
  test.prop([fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: anyUnit }))], {
    numRuns: fcRuns(1000),
  })('equals the length of the TextEncoder encoding for any string', (text) => {
    expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
  });
});

describe('parseDuration', () => {
  const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  test.prop([fc.integer({ min: 1, max: 86_400_000 }), fc.constantFrom('ms', 's', 'm', 'h')], {
    numRuns: fcRuns(500),
  })('reads back a whole number of any unit it writes, up to 24 h', (n, unit) => {
    const ms = n * UNIT_MS[unit as keyof typeof UNIT_MS];
    expect(parseDuration(`${n}${unit}`)).toBe(ms <= 86_400_000 ? ms : undefined);
  });

  test.prop([fc.integer({ min: 1, max: 999_999 }), fc.constantFrom('m', 'h', 'd')], { numRuns: fcRuns(500) })(
    'reads back any retention window it writes',
    (n, unit) => {
      const ms = n * { m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as 'm' | 'h' | 'd'];
      expect(parseDuration(`${n}${unit}`, RETENTION_WINDOW)).toBe(ms);
    },
  );

  test.prop([fc.string({ unit: fc.constantFrom('0', '1', '9', '.', ' ', '-', 'm', 's', 'h', 'd') })], {
    numRuns: fcRuns(1000),
  })('returns a whole number of ms above 0 and at most 24 h, or nothing, for any text', (text) => {
    const ms = parseDuration(text);
    if (ms !== undefined) {
      expect(Number.isInteger(ms)).toBe(true);
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(86_400_000);
    }
  });
});

describe('parseYamlConfig', () => {
  test.prop([fc.string({ maxLength: 200 })], { numRuns: fcRuns(500) })(
    'never throws, and every error has a position inside the text',
    (text) => {
      const r = parseYamlConfig(text);
      if (r.ok) return;
      const lines = text.split('\n').length;
      for (const e of r.errors) {
        expect(e.line).toBeGreaterThanOrEqual(1);
        expect(e.line).toBeLessThanOrEqual(lines + 1);
        expect(e.column).toBeGreaterThanOrEqual(1);
      }
    },
  );
});
