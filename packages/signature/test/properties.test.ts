import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect } from 'vitest';
import { renderSignature, SCHEMA_MAX_BYTES, sanitizeSchema } from '../src/index';

const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ' ', '|', '"', '\\', '\n', '\u202e', '…', 'string', '42', 'x-source', '__proto__'),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ minLength: 200, maxLength: 600 }),
);

/** Schema-shaped JSON: the keywords the renderer reads, nested, with odd values in every slot. */
const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small' },
    fc.boolean(),
    fc.jsonValue({ maxDepth: 2 }),
    fc.record(
      {
        type: fc.oneof(
          fc.constantFrom('string', 'integer', 'number', 'boolean', 'null', 'object', 'array', 'date'),
          fc.array(fc.constantFrom('string', 'null', 'object', 'array', 'bogus'), { maxLength: 3 }),
        ),
        properties: fc.dictionary(text, tie('schema'), { maxKeys: 6 }),
        required: fc.array(fc.oneof(text, fc.integer()), { maxLength: 4 }),
        items: fc.oneof(tie('schema'), fc.array(tie('schema'), { maxLength: 3 })),
        prefixItems: fc.array(tie('schema'), { maxLength: 3 }),
        enum: fc.array(fc.oneof(text, fc.jsonValue({ maxDepth: 1 })), { maxLength: 6 }),
        const: fc.jsonValue({ maxDepth: 1 }),
        anyOf: fc.array(tie('schema'), { maxLength: 3 }),
        oneOf: fc.array(tie('schema'), { maxLength: 3 }),
        allOf: fc.array(tie('schema'), { maxLength: 3 }),
        $ref: fc.oneof(text, fc.constantFrom('#', '#/$defs/A', '#/properties/a', 'x.json#/a~1b')),
        default: fc.jsonValue({ maxDepth: 1 }),
        nullable: fc.boolean(),
        additionalProperties: fc.oneof(fc.boolean(), tie('schema')),
        'x-source': fc.oneof(text, fc.jsonValue({ maxDepth: 0 })),
        'x-ext': fc.jsonValue({ maxDepth: 1 }),
        $defs: fc.dictionary(text, tie('schema'), { maxKeys: 2 }),
      },
      { requiredKeys: [] },
    ),
  ),
}));

const anyJson = fc.jsonValue({ maxDepth: 4 });
const field = fc.oneof(
  anyJson,
  text,
  fc.array(text, { maxLength: 60 }),
  fc.constantFrom('read', 'write', 'loom'),
);

describe('renderSignature on arbitrary input', () => {
  test.prop([anyJson, anyJson, anyJson, anyJson, anyJson], { numRuns: fcRuns(500) })(
    'never throws, stays within 400 characters, on one line, for arbitrary JSON in every field',
    (name, inputSchema, outputs, effect, scope) => {
      const line = renderSignature({ name, inputSchema, outputs, effect, scope });
      expect(line.length).toBeLessThanOrEqual(400);
      expect(line).not.toMatch(LINE_BREAK);
    },
  );

  test.prop([field, schema, field, field, field], { numRuns: fcRuns(300) })(
    'never exceeds 400 characters for schema-shaped input, and is deterministic [HC-80]',
    (name, inputSchema, outputs, effect, scope) => {
      const input = { name, inputSchema, outputs, effect, scope };
      const line = renderSignature(input);
      expect(line.length).toBeLessThanOrEqual(400);
      expect(line).not.toMatch(LINE_BREAK);
      expect(renderSignature(structuredClone(input))).toBe(line);
      // The bracket always survives, last on the line.
      expect(line).toMatch(/ {2}\[(?:(?:read|write), )?[^\n]*\]$/);
    },
  );
});

describe('sanitizeSchema on arbitrary input', () => {
  const hasExtensionKeyword = (s: unknown): boolean => {
    if (typeof s !== 'object' || s === null) return false;
    if (Array.isArray(s)) return s.some(hasExtensionKeyword);
    return Object.entries(s).some(([k, v]) => {
      if (k.startsWith('x-')) return true;
      if (['default', 'const', 'enum', 'examples'].includes(k)) return false;
      const names = [
        'properties',
        'patternProperties',
        '$defs',
        'definitions',
        'dependencies',
        'dependentSchemas',
      ];
      if (names.includes(k) && v && typeof v === 'object' && !Array.isArray(v)) {
        return Object.values(v).some(hasExtensionKeyword);
      }
      return hasExtensionKeyword(v);
    });
  };

  test.prop([fc.oneof(schema, anyJson)], { numRuns: fcRuns(500) })(
    'never throws; gives true or an object without x-* keywords within 16 KiB; idempotent [HC-44, HC-45, HC-46]',
    (input) => {
      const before = JSON.stringify(input);
      const out = sanitizeSchema(input);
      expect(JSON.stringify(input)).toBe(before);
      if (out === true) return;
      expect(typeof out === 'object' && !Array.isArray(out)).toBe(true);
      expect(hasExtensionKeyword(out)).toBe(false);
      expect(new TextEncoder().encode(JSON.stringify(out)).length).toBeLessThanOrEqual(SCHEMA_MAX_BYTES);
      expect(sanitizeSchema(out)).toEqual(out);
    },
  );
});
