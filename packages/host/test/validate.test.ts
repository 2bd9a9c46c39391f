import { describe, expect, it } from 'vitest';
import { VALIDATORS_KEPT, validateArgs } from '../src/validate';

describe('argument validators', () => {
  it('keeps a bounded cache: a schema dropped from it compiles again and still judges correctly', () => {
    const first = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    expect(validateArgs(first, { n: 1 })).toEqual([]);
    for (let i = 0; i < VALIDATORS_KEPT + 10; i++) {
      const schema = { type: 'object', properties: { [`p${i}`]: { type: 'string' } } };
      expect(validateArgs(schema, { [`p${i}`]: 1 })).toEqual([{ path: `/p${i}`, message: 'must be string' }]);
    }
    // A fresh object with the same text: the entry was dropped, so it is compiled anew.
    const again = structuredClone(first);
    expect(validateArgs(again, {})).toEqual([{ path: '/n', message: "must have required property 'n'" }]);
    expect(validateArgs(again, { n: 2 })).toEqual([]);
  });
});
