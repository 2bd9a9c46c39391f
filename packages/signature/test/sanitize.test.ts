import { describe, expect, it } from 'vitest';
import { SCHEMA_MAX_BYTES, sanitizeSchema } from '../src/index';

describe('sanitizeSchema', () => {
  it('removes every x-* keyword at every depth [HC-44]', () => {
    const schema = {
      type: 'object',
      'x-root': 1,
      required: ['a'],
      properties: {
        a: { type: 'string', 'x-source': 'loom', 'x-argv-slot': 3 },
        list: { type: 'array', items: { type: 'object', 'x-deep': { 'x-deeper': true }, properties: {} } },
        tuple: { prefixItems: [{ 'x-p': 1 }], items: [{ 'x-i': 1 }], additionalItems: { 'x-a': 1 } },
        u: { anyOf: [{ 'x-u': 1 }], oneOf: [{ 'x-o': 1 }], allOf: [{ 'x-al': 1 }], not: { 'x-n': 1 } },
        // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword under test
        c: { if: { 'x-if': 1 }, then: { 'x-then': 1 }, else: { 'x-else': 1 }, contains: { 'x-c': 1 } },
        m: {
          additionalProperties: { 'x-ap': 1 },
          patternProperties: { '^a': { 'x-pp': 1 } },
          propertyNames: { 'x-pn': 1 },
          dependentSchemas: { a: { 'x-ds': 1 } },
          dependencies: { b: { 'x-dep': 1 }, c: ['a'] },
          unevaluatedProperties: { 'x-up': 1 },
          unevaluatedItems: { 'x-ui': 1 },
        },
      },
      $defs: { D: { 'x-d': 1, type: 'integer' } },
      definitions: { E: { 'x-e': 1 } },
    };
    const out = sanitizeSchema(schema);
    expect(JSON.stringify(out)).not.toMatch(/"x-/);
    expect(out).toEqual({
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'string' },
        list: { type: 'array', items: { type: 'object', properties: {} } },
        tuple: { prefixItems: [{}], items: [{}], additionalItems: {} },
        u: { anyOf: [{}], oneOf: [{}], allOf: [{}], not: {} },
        // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword under test
        c: { if: {}, then: {}, else: {}, contains: {} },
        m: {
          additionalProperties: {},
          patternProperties: { '^a': {} },
          propertyNames: {},
          dependentSchemas: { a: {} },
          dependencies: { b: {}, c: ['a'] },
          unevaluatedProperties: {},
          unevaluatedItems: {},
        },
      },
      $defs: { D: { type: 'integer' } },
      definitions: { E: {} },
    });
  });

  it('keeps a property named x-foo and x- keys inside data (default, const, enum, examples) [HC-44]', () => {
    const schema = {
      type: 'object',
      properties: { 'x-foo': { type: 'string', 'x-gone': 1 } },
      patternProperties: { '^x-': { 'x-gone': 1 } },
      $defs: { 'x-def': { 'x-gone': 1, type: 'integer' } },
      definitions: { 'x-def': { 'x-gone': 1 } },
      dependentSchemas: { 'x-foo': { 'x-gone': 1 } },
      dependencies: { 'x-foo': ['x-bar'], 'x-baz': { 'x-gone': 1 } },
      required: ['x-foo'],
      default: { 'x-foo': 'kept' },
      examples: [{ 'x-foo': 'kept' }],
      const: { 'x-c': 1 },
      enum: [{ 'x-e': 1 }],
    };
    expect(sanitizeSchema(schema)).toEqual({
      type: 'object',
      properties: { 'x-foo': { type: 'string' } },
      patternProperties: { '^x-': {} },
      $defs: { 'x-def': { type: 'integer' } },
      definitions: { 'x-def': {} },
      dependentSchemas: { 'x-foo': {} },
      dependencies: { 'x-foo': ['x-bar'], 'x-baz': {} },
      required: ['x-foo'],
      default: { 'x-foo': 'kept' },
      examples: [{ 'x-foo': 'kept' }],
      const: { 'x-c': 1 },
      enum: [{ 'x-e': 1 }],
    });
  });

  it('removes x-* keys inside keywords it does not know, objects and arrays alike [HC-44]', () => {
    const schema = {
      type: 'object',
      properties2: { 'x-unknown-keyword-content': 1, nested: { 'x-n': 1, keep: true } },
      'ui:layout': [{ 'x-a': 1, b: [{ 'x-c': 2 }] }, 'x-plain-string'],
    };
    expect(sanitizeSchema(schema)).toEqual({
      type: 'object',
      properties2: { nested: { keep: true } },
      'ui:layout': [{ b: [{}] }, 'x-plain-string'],
    });
  });

  it('removes an x- key under an empty-named unknown keyword, the fast-check seed -45145375 case [HC-44]', () => {
    // The property suite found this: `{"":{"x-":""}}` kept its `x-` key because "" is not a keyword
    // the walker knew.
    expect(sanitizeSchema({ '': { 'x-': '' } })).toEqual({ '': {} });
  });

  it('treats Object.prototype names as unknown keywords: no crash, x-* under them removed [HC-44]', () => {
    const schema = JSON.parse(
      '{"constructor":{"x-a":1,"b":{"x-c":1}},"toString":{"x-b":1},"__proto__":{"x-p":1,"q":1},"hasOwnProperty":[{"x-h":1}]}',
    );
    const out = sanitizeSchema(schema);
    expect(out).toEqual(
      JSON.parse('{"constructor":{"b":{}},"toString":{},"__proto__":{"q":1},"hasOwnProperty":[{}]}'),
    );
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('returns a fresh copy and leaves its input untouched [HC-44]', () => {
    const schema = { type: 'object', 'x-a': 1, properties: { p: { 'x-b': 2 } } };
    const before = structuredClone(schema);
    const out = sanitizeSchema(schema);
    expect(schema).toEqual(before);
    expect(out).not.toBe(schema);
    expect(sanitizeSchema(out)).toEqual(out);
  });

  it('returns true where the schema is not an object [HC-45]', () => {
    for (const s of [true, false, null, 0, 'schema', [], [{ type: 'string' }], undefined]) {
      expect(sanitizeSchema(s)).toBe(true);
    }
  });

  it('returns true for a value that is not JSON (a cycle, a BigInt) [HC-45]', () => {
    const cyc: Record<string, unknown> = { type: 'object' };
    cyc.properties = { self: cyc };
    expect(sanitizeSchema(cyc)).toBe(true);
    expect(sanitizeSchema({ maximum: 10n })).toBe(true);
  });

  const sized = (bytes: number, extra: Record<string, unknown> = {}) => {
    // {"description":"…"} is 18 bytes of framing around the string.
    const schema = { description: 'd'.repeat(bytes - 18), ...extra };
    return schema;
  };

  it('keeps a schema of exactly 16 KiB and returns true one byte over [HC-46]', () => {
    expect(JSON.stringify(sized(SCHEMA_MAX_BYTES))).toHaveLength(SCHEMA_MAX_BYTES);
    expect(sanitizeSchema(sized(SCHEMA_MAX_BYTES))).toEqual(sized(SCHEMA_MAX_BYTES));
    expect(sanitizeSchema(sized(SCHEMA_MAX_BYTES + 1))).toBe(true);
  });

  it('measures after the x-* keywords are gone [HC-46]', () => {
    const big = sized(SCHEMA_MAX_BYTES, { 'x-bulk': 'b'.repeat(100_000) });
    expect(sanitizeSchema(big)).toEqual(sized(SCHEMA_MAX_BYTES));
  });

  it('counts UTF-8 bytes, not characters [HC-46]', () => {
    // 'é' is two bytes: 8183 of them plus the framing is 16,384 bytes but 8,201 characters.
    const schema = { description: 'é'.repeat((SCHEMA_MAX_BYTES - 18) / 2) };
    expect(sanitizeSchema(schema)).toEqual(schema);
    expect(sanitizeSchema({ description: `${schema.description}é` })).toBe(true);
    expect(sanitizeSchema({ description: '😀'.repeat(4096) })).toBe(true);
  });
});
