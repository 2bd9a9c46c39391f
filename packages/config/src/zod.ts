// @harness/config/zod: the zod pieces every config schema builds on, so that each file says the same
// thing the same way.
import { z } from 'zod';

/**
 * A strict object: an unknown key is an error whose message lists the keys the object does accept
 * (`expected only the keys id, argv; unknown key "agrv"`).
 */
export function strict<T extends z.ZodRawShape>(shape: T): z.ZodObject<T, z.core.$strict> {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `expected only the keys ${known}; unknown key ${iss.keys.map((k) => `"${k}"`).join(', ')}`
        : undefined,
  });
}

/**
 * A string id of the kind `what` names (`pack`, `harness`) matching `pattern`, one of the root
 * entry's `ID_PATTERN` and `SHORT_ID_PATTERN`: the message spells the pattern without its anchors
 * (`expected a pack id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _)`).
 */
export function id(what: string, pattern: RegExp): z.ZodString {
  const shown = pattern.source.replace(/^\^/, '').replace(/\$$/, '');
  return z.string({ error: `expected a ${what} id (a string)` }).regex(pattern, {
    error: `expected a ${what} id matching ${shown} (lowercase letters, digits, - and _)`,
  });
}
