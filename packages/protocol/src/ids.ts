// The shape of the ids a `loom.*` call names: a loom id and a `loom.compose` request id
// (docs/protocol.md, "Ids").

/** The pattern of a loom id and of a request id, as the built-in rows' JSON Schema states it. */
export const LOOM_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$';

const LOOM_ID = new RegExp(LOOM_ID_PATTERN);

/** Whether `value` has the shape of a loom id (or request id): a letter or digit, then at most 127 of `A-Z a-z 0-9 _ . : -`. */
export function isLoomId(value: unknown): value is string {
  return typeof value === 'string' && LOOM_ID.test(value);
}
