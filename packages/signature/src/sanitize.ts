// The schema the model sees under `detail`: the host's with its `x-*` extension keywords removed, or
// `true` (open) where it is not an object or is larger than 16 KiB once they are gone (seed 000,
// "list_commands").
import traverse from 'json-schema-traverse';
import { isObject } from './format';

/** Largest sanitised schema shown, in UTF-8 bytes of its compact JSON; larger reads as `true`. */
export const SCHEMA_MAX_BYTES = 16 * 1024;

/** A sanitised schema: a fresh JSON object without extension keywords, or `true` for an open one. */
export type SanitizedSchema = Record<string, unknown> | true;

// Where subschemas sit. json-schema-traverse's tables name draft-04 to draft-07 (and `$defs`); the
// 2019-09/2020-12 keywords it lacks are added here. The walk itself is ours, iterative and reading
// own keys only: the library's recursive walk tests keys with `in`, so `constructor` or `toString`
// would count as keywords, and a deep schema could overflow the stack.
// The tables are public on the function (its README documents them) but absent from its typings.
const tables = traverse as unknown as Record<'keywords' | 'arrayKeywords' | 'propsKeywords', object>;
const SINGLE = new Set([
  ...Object.keys(tables.keywords),
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
  'contains',
]);
const ARRAY = new Set([...Object.keys(tables.arrayKeywords), 'prefixItems']);
const PROPS = new Set([...Object.keys(tables.propsKeywords), 'dependentSchemas']);

/**
 * Returns the schema with every `x-*` keyword removed from every schema object, at any depth, or
 * `true` (open) where the input is not a JSON object or the result is larger than
 * {@link SCHEMA_MAX_BYTES}. Never mutates its input and never throws.
 *
 * Only keywords are removed: a property *named* `x-foo` under `properties` (or `$defs`,
 * `patternProperties`, …) is kept, and so is data (`default`, `const`, `enum`, `examples`). A value
 * that is not JSON (a cycle, a BigInt) reads as `true`.
 */
export function sanitizeSchema(schema: unknown): SanitizedSchema {
  if (!isObject(schema)) return true;
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(schema));
  } catch {
    return true;
  }
  if (!isObject(copy)) return true;
  stripExtensions(copy);
  return utf8Length(JSON.stringify(copy)) > SCHEMA_MAX_BYTES ? true : copy;
}

function stripExtensions(root: Record<string, unknown>): void {
  const pending: Record<string, unknown>[] = [root];
  const visit = (value: unknown) => {
    if (isObject(value)) pending.push(value);
  };
  for (let schema = pending.pop(); schema !== undefined; schema = pending.pop()) {
    for (const key of Object.keys(schema)) {
      const value = schema[key];
      if (key.startsWith('x-')) delete schema[key];
      else if (ARRAY.has(key) && Array.isArray(value)) value.forEach(visit);
      else if (SINGLE.has(key) || ARRAY.has(key)) visit(value);
      else if (PROPS.has(key) && isObject(value)) Object.values(value).forEach(visit);
    }
  }
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
