// The schema the model sees under `detail`: the host's with its `x-*` extension keywords removed, or
// `true` (open) where it is not an object or is larger than 16 KiB once they are gone (seed 000,
// "list_commands").
import { utf8Length } from '@harness/config';
import traverse from 'json-schema-traverse';
import { isObject } from './format';

/** Largest sanitised schema shown, in UTF-8 bytes of its compact JSON; larger reads as `true`. */
export const SCHEMA_MAX_BYTES = 16 * 1024;

/** A sanitised schema: a fresh JSON object without extension keywords, or `true` for an open one. */
export type SanitizedSchema = Record<string, unknown> | true;

// Which keys are not keywords. Under the data keywords the value is an instance, not a schema, so an
// `x-` key there is data and stays. Under the name-map keywords (json-schema-traverse's
// `propsKeywords`, which include `dependencies`, plus 2019-09's `dependentSchemas`) each key names a
// property or a definition, and each value is a schema that is still walked. Everything else is walked
// as a schema object, including keywords this walker does not know: "every `x-*` keyword at every
// depth" (seed 000, "list_commands"). The walk is ours, iterative and reading own keys only: the
// library's recursive walk tests keys with `in`, so `constructor` or `toString` would count as
// keywords, and a deep schema could overflow the stack.
// The tables are public on the function (its README documents them) but absent from its typings.
const tables = traverse as unknown as Record<'propsKeywords', object>;
const DATA = new Set(['default', 'const', 'enum', 'examples']);
const NAMES = new Set([...Object.keys(tables.propsKeywords), 'dependentSchemas']);

/**
 * Returns the schema with every `x-*` keyword removed from every schema object, at any depth, or
 * `true` (open) where the input is not a JSON object or the result is larger than
 * {@link SCHEMA_MAX_BYTES}. Never mutates its input and never throws.
 *
 * Objects under keywords it does not know are walked too. Two kinds of key are not keywords and
 * stay: a property or definition *named* `x-foo` under `properties`, `patternProperties`, `$defs`,
 * `definitions`, `dependencies` or `dependentSchemas` (its schema is still walked), and anything
 * inside data (`default`, `const`, `enum`, `examples`). A value that is not JSON (a cycle, a BigInt)
 * reads as `true`.
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
  const pending: unknown[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    // A loop, not `push(...node)`: spreading a very long array overflows the argument limit.
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    if (!isObject(node)) continue;
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (key.startsWith('x-')) delete node[key];
      else if (DATA.has(key)) continue;
      else if (NAMES.has(key) && isObject(value)) for (const v of Object.values(value)) pending.push(v);
      else pending.push(value);
    }
  }
}
