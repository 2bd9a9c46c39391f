// Each tool's MCP `inputSchema` (a function tool's `parameters`), generated from the zod schema the
// tool reads its input with, never written by hand.
import { z } from 'zod';
import type { JsonSchema } from './tool';

/**
 * Keywords that bound a value the tool reads: a length, a count, a range, a pattern, the keys an
 * object refuses. The tool checks each bound and answers what to fix as data (`invalid_input`);
 * listed in the schema, they would let a client that checks arguments itself refuse the call with a
 * protocol error the model cannot act on.
 */
const BOUNDS = new Set([
  '$schema',
  'additionalProperties',
  'default',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxItems',
  'maxLength',
  'maximum',
  'minItems',
  'minLength',
  'minimum',
  'pattern',
  'propertyNames',
]);

// Built once per schema: run_command and run_read_command share theirs, and every session builds its tools.
const generated = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON Schema of a tool's input: what a model reads of it (each field's type and purpose, the
 * fields a call needs), not the bounds the tool enforces ({@link BOUNDS}). A field that also takes
 * `null`, which the tool reads as left out, is listed as its type alone. There is no `$schema`: MCP
 * reads it as draft 2020-12, and it uses only keywords every draft reads alike.
 */
export function toolInputSchema(schema: z.ZodType): JsonSchema {
  let json = generated.get(schema);
  if (json === undefined) {
    // A custom schema (a JSON object kept as the model wrote it) states its type in its metadata.
    json = lenient(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as JsonSchema;
    generated.set(schema, json);
  }
  return json;
}

/** `node` and everything under it without {@link BOUNDS}, `null` alternatives and with `type` first. */
function lenient(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(lenient);
  if (typeof node !== 'object' || node === null) return node;
  const { type, required, ...rest } = withoutNull(node as Record<string, unknown>);
  const out: Record<string, unknown> = {};
  if (type !== undefined) out.type = type;
  if (required !== undefined) out.required = required;
  for (const [key, value] of Object.entries(rest)) {
    if (BOUNDS.has(key)) continue;
    // Keys under `properties` are field names, not keywords: none of them is dropped.
    out[key] =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, field]) => [name, lenient(field)]))
        : lenient(value);
  }
  return out;
}

/** `node` without its `null` alternative: `type: [T, "null"]` reads `T`; `anyOf: [S, {type: "null"}]` reads `S`. */
function withoutNull(node: Record<string, unknown>): Record<string, unknown> {
  const { type, anyOf, ...rest } = node;
  if (Array.isArray(type) && type.length === 2 && type.includes('null'))
    return { type: type.find((t) => t !== 'null'), ...rest };
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const other = anyOf.filter(
      (s) => !(typeof s === 'object' && s !== null && 'type' in s && s.type === 'null'),
    );
    if (other.length === 1 && typeof other[0] === 'object' && other[0] !== null)
      return { ...(other[0] as Record<string, unknown>), ...rest };
  }
  return node;
}
