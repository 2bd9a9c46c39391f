import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENV_NAME_PATTERN, ID_PATTERN, SHORT_ID_PATTERN, utf8Length } from '../src/index';
import { id, strict } from '../src/zod';

const messages = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

describe('utf8Length', () => {
  it('counts UTF-8 bytes like the encoder: 1 to 4 per character, a lone surrogate as 3', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a😀é€', '\ud800x', 'x\udc00', '\ud800']) {
      expect(utf8Length(text), JSON.stringify(text)).toBe(new TextEncoder().encode(text).length);
    }
    expect([utf8Length('a'), utf8Length('é'), utf8Length('€'), utf8Length('😀')]).toEqual([1, 2, 3, 4]);
  });
});

describe('id patterns', () => {
  it('ID_PATTERN: lowercase letters, digits, - and _, not starting with - or _, no dot', () => {
    for (const ok of ['git', 'rev_parse', 'a-1', '0x']) expect(ID_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ['', '-a', '_a', 'Git', 'json.tools', 'a b'])
      expect(ID_PATTERN.test(bad), bad).toBe(false);
  });

  it('SHORT_ID_PATTERN: the same, at most 63 characters', () => {
    expect(SHORT_ID_PATTERN.test('a'.repeat(63))).toBe(true);
    expect(SHORT_ID_PATTERN.test('a'.repeat(64))).toBe(false);
    expect(ID_PATTERN.test('a'.repeat(64))).toBe(true);
    expect(SHORT_ID_PATTERN.test('Bad')).toBe(false);
  });

  it('ENV_NAME_PATTERN: letters, digits and _, not starting with a digit', () => {
    for (const ok of ['PATH', '_X', 'lc_all9']) expect(ENV_NAME_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ['', '9X', 'A-B', 'A=B']) expect(ENV_NAME_PATTERN.test(bad), bad).toBe(false);
  });
});

describe('strict', () => {
  it('names the unknown keys and lists the keys it accepts', () => {
    const schema = strict({ id: z.string(), argv: z.array(z.string()) });
    expect(messages(schema, { id: 'a', argv: [], agrv: [], x: 1 })).toMatchInlineSnapshot(`
      [
        "expected only the keys id, argv; unknown key "agrv", "x"",
      ]
    `);
    expect(messages(schema, { id: 'a', argv: [] })).toEqual([]);
  });
});

describe('id', () => {
  it('says what kind of id, the pattern without its anchors, and the characters allowed', () => {
    expect(messages(id('pack', ID_PATTERN), 'json.tools')).toMatchInlineSnapshot(`
      [
        "expected a pack id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _)",
      ]
    `);
    expect(messages(id('harness', SHORT_ID_PATTERN), 'Nightly')).toMatchInlineSnapshot(`
      [
        "expected a harness id matching [a-z0-9][a-z0-9_-]{0,62} (lowercase letters, digits, - and _)",
      ]
    `);
    expect(messages(id('source', SHORT_ID_PATTERN), 7)).toEqual(['expected a source id (a string)']);
    expect(messages(id('pack', ID_PATTERN), 'git')).toEqual([]);
  });
});
