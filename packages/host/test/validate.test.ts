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

describe('a value its input’s pattern refuses', () => {
  const schema = {
    type: 'object',
    properties: {
      revision: {
        type: 'string',
        description: 'A commit (HEAD, main, HEAD~2, a commit id), or a range A..B',
        pattern: '^(?!\\.\\.\\.?$)[A-Za-z0-9_~^]*(?:\\.\\.[A-Za-z0-9_~^]*)?$',
      },
      tag: { type: 'string', pattern: '^v[0-9]+$' },
    },
  };

  it('is said in the words of the input’s description, not as the regular expression', () => {
    expect(validateArgs(schema, { revision: 'HEAD....main' })).toEqual([
      {
        path: '/revision',
        message:
          '"HEAD....main" is not accepted: expected a commit (HEAD, main, HEAD~2, a commit id), or a range A..B',
      },
    ]);
  });

  it('points at the schema when the input has no description', () => {
    expect(validateArgs(schema, { tag: 'one' })).toEqual([
      { path: '/tag', message: '"one" does not have the form this input takes (its pattern in the schema)' },
    ]);
  });
});
