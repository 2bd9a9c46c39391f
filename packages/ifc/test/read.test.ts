import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect, it } from 'vitest';
import { MAX_ATOM_DEPTH, normalize, readCeiling, readLabel } from '../src/index';
import { label } from './arbitraries';

describe('readLabel', () => {
  it('reads undefined as absent', () => {
    expect(readLabel(undefined)).toEqual({ status: 'absent' });
  });

  it('reads a label with either field left out, normalized', () => {
    expect(readLabel({ confidentiality: ['bob', 'alice'] })).toEqual({
      status: 'label',
      label: { confidentiality: ['alice', 'bob'], integrity: [] },
    });
    expect(readLabel({})).toEqual({ status: 'label', label: { confidentiality: [], integrity: [] } });
  });

  test.prop([label], { numRuns: fcRuns(300) })('reads back every label it could have been given', (l) => {
    expect(readLabel(JSON.parse(JSON.stringify(l)))).toEqual({ status: 'label', label: normalize(l) });
  });

  it.each([
    ['null', null, 'invalid_type'],
    ['a string', 'alice', 'invalid_type'],
    ['an array', [], 'invalid_type'],
    ['an unknown key', { confidentiality: [], expires: 1 }, 'unknown_key'],
    ['confidentiality not an array', { confidentiality: 'alice' }, 'invalid_type'],
    ['integrity not an array', { integrity: {} }, 'invalid_type'],
    ['an empty atom', { confidentiality: [''] }, 'invalid_atom'],
    ['a number atom', { confidentiality: [7] }, 'invalid_atom'],
    ['an empty anyOf', { confidentiality: [{ anyOf: [] }] }, 'empty_clause'],
    ['anyOf not an array', { confidentiality: [{ anyOf: 'alice' }] }, 'invalid_type'],
    ['anyOf beside other keys', { confidentiality: [{ anyOf: ['a'], also: 1 }] }, 'unknown_key'],
    ['a nested anyOf', { confidentiality: [{ anyOf: [{ anyOf: ['a'] }] }] }, 'invalid_atom'],
    ['an object atom holding anyOf', { integrity: [{ anyOf: ['a'] }] }, 'invalid_atom'],
    ['a non-finite number inside an atom', { integrity: [{ n: Number.NaN }] }, 'not_json'],
    ['a non-plain object atom', { integrity: [new Date(0)] }, 'invalid_atom'],
  ])('reports %s as malformed, never as absent', (_name, value, code) => {
    const read = readLabel(value);
    expect(read.status).toBe('malformed');
    if (read.status === 'malformed') expect(read.issues.map((i) => i.code)).toContain(code);
  });

  it('refuses an atom nested deeper than MAX_ATOM_DEPTH', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < MAX_ATOM_DEPTH + 1; i++) deep = { d: deep };
    const read = readLabel({ integrity: [deep] });
    expect(read.status).toBe('malformed');
    if (read.status === 'malformed') expect(read.issues[0]?.code).toBe('too_deep');
  });

  it('names the path of each issue and keeps content out of messages', () => {
    const read = readLabel({ confidentiality: ['ok', 'SECRET-VALUE', 42] });
    expect(read).toMatchInlineSnapshot(`
      {
        "issues": [
          {
            "code": "invalid_atom",
            "message": "Expected an atom (a non-empty string or a plain JSON object), found a number.",
            "path": [
              "confidentiality",
              2,
            ],
          },
        ],
        "status": "malformed",
      }
    `);
  });

  test.prop([fc.anything()], { numRuns: fcRuns(300) })(
    'is total: any value reads as label, absent or malformed',
    (v) => {
      const read = readLabel(v);
      expect(['label', 'absent', 'malformed']).toContain(read.status);
      if (v !== undefined) expect(read.status).not.toBe('absent');
    },
  );
});

describe('readCeiling', () => {
  it('reads undefined as no ceiling and [] as public only', () => {
    expect(readCeiling(undefined)).toEqual({ ok: true, value: undefined });
    expect(readCeiling([])).toEqual({ ok: true, value: [] });
  });

  it('reads clauses, normalized', () => {
    expect(readCeiling(['bob', { anyOf: ['alice'] }])).toEqual({ ok: true, value: ['alice', 'bob'] });
  });

  it.each([
    ['null', null],
    ['an object', { confidentiality: [] }],
    ['a string', 'alice'],
    ['an empty disjunction (it would admit every label)', [{ anyOf: [] }]],
    ['a bad atom', [3]],
  ])('refuses %s with ceiling_unavailable', (_name, value) => {
    const read = readCeiling(value);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.code).toBe('ceiling_unavailable');
  });
});
