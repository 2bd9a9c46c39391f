// The field types the wire shapes share (wire.ts, answer.ts): strings and whole numbers with the
// bounds their JSON Schema states, JSON objects and values, labels.
import { z } from 'zod';

// Code points, as JSON Schema's minLength and maxLength count them (not UTF-16 units, which a
// string's `length` counts): the generated schema and the parser then agree on every string.
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** A string of `min` to `max` characters (code points); the JSON Schema states the same bounds. */
export function chars(min: number, max: number) {
  const span = min === 0 ? `at most ${max}` : `${min} to ${max}`;
  return z
    .string()
    .refine((s) => codePoints(s) >= min && codePoints(s) <= max, `must hold ${span} characters`)
    .meta(min === 0 ? { maxLength: max } : { minLength: min, maxLength: max });
}

/**
 * A whole number of at least `min`, as JSON Schema's `integer` reads one (no bound above: a
 * version past 2^53 is as whole to the wire as any other).
 */
export function whole(min: number) {
  return z
    .number()
    .refine((n) => Number.isInteger(n) && n >= min, `must be a whole number of at least ${min}`)
    .meta({ type: 'integer', minimum: min });
}

/** True for a JSON object: not `null`, not an array. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON object, the same object, never a copy: a copy would drop an own `__proto__` key, and the
 * host validates the arguments exactly as they were sent.
 */
export const jsonObject = z
  .custom<Record<string, unknown>>(isObject, 'must be an object')
  .meta({ type: 'object' });

/**
 * Any JSON value, of a type only its producer knows (what a command printed, parsed): the same
 * value, never walked nor copied, however large or deep. A value read off the wire is JSON by
 * construction; only its absence is refused.
 */
export const jsonValue = z
  .unknown()
  .refine((value): boolean => value !== undefined, 'is required')
  .meta({ description: 'Any JSON value.' });

/** A confidentiality/integrity label as `@harness/ifc` reads it; the protocol carries it as data. */
export const label = z.object({
  confidentiality: z.array(z.unknown()).exactOptional(),
  integrity: z.array(z.unknown()).exactOptional(),
});
