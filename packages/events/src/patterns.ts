// The seed's "Validation patterns" table (seed 004, "Typed extraction happens once"). Every pattern
// starts with an alphanumeric or is numeric, which is what keeps a leading `-` out of every typed value.
import { utf8Length } from '@harness/config';

/** `name` and `action`: `^[a-z][a-z_]{0,63}$`. */
export const NAME_PATTERN = /^[a-z][a-z_]{0,63}$/;
/** `repo`: one to twenty slash-separated segments, each starting with an alphanumeric. */
export const REPO_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}(\/[A-Za-z0-9][A-Za-z0-9_.-]{0,99}){1,19}$/;
/** `sha`: 40 or 64 lowercase hex digits. */
export const SHA_PATTERN = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** `actor`: a forge user name. */
export const ACTOR_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;
/** A `meta.<key>` key. */
export const META_KEY_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
/** A `meta.<key>` value (a JSON string). */
export const META_VALUE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
/** `event.id`. */
export const EVENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
/** The largest `number` the table accepts (a signed 32-bit integer). */
export const NUMBER_MAX = 2147483647;
/** The longest `url` the table accepts, in UTF-8 bytes (Go's `len`). */
export const URL_MAX_BYTES = 2048;
const URL_FORBIDDEN = /[\x00-\x20\x7f]/;

/** Why a value failed its row of the validation table. Stable: tests and logs key on it. */
export type DropRule =
  | 'name_pattern'
  | 'action_pattern'
  | 'repo_pattern'
  | 'repo_segments'
  | 'number_type'
  | 'number_fraction'
  | 'number_range'
  | 'url_type'
  | 'url_length'
  | 'url_control'
  | 'url_parse'
  | 'url_https'
  | 'url_host'
  | 'sha_pattern'
  | 'actor_pattern'
  | 'actor_not_trusted'
  | 'meta_key'
  | 'meta_value'
  | 'untrusted_type'
  | 'unreadable'
  | 'scheme_unsupported';

/** The outcome of one validator: the value to store, or the rule it broke. */
export type Check<T> = { ok: true; value: T } | { ok: false; rule: DropRule };

const fail = (rule: DropRule): { ok: false; rule: DropRule } => ({ ok: false, rule });

/** Validates an event name (the delivery's event header). */
export function checkName(value: unknown): Check<string> {
  return typeof value === 'string' && NAME_PATTERN.test(value) ? { ok: true, value } : fail('name_pattern');
}

/** Validates an `action`. */
export function checkAction(value: unknown): Check<string> {
  return typeof value === 'string' && NAME_PATTERN.test(value) ? { ok: true, value } : fail('action_pattern');
}

/**
 * Validates a `repo`. With `segments` set, the path must have exactly that many segments
 * (`owner/name` is 2).
 */
export function checkRepo(value: unknown, segments?: number): Check<string> {
  if (typeof value !== 'string' || !REPO_PATTERN.test(value)) return fail('repo_pattern');
  if (segments !== undefined && value.split('/').length !== segments) return fail('repo_segments');
  return { ok: true, value };
}

/**
 * Validates a `number`: a JSON number (never a string), whole, 1 ≤ n ≤ 2147483647.
 *
 * `412.0` in a body parses to the number 412 before any code sees it, so it counts as whole.
 */
export function checkNumber(value: unknown): Check<number> {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail('number_type');
  if (!Number.isInteger(value)) return fail('number_fraction');
  if (value < 1 || value > NUMBER_MAX) return fail('number_range');
  return { ok: true, value };
}

function hostOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const host = new URL(value).host;
    return host === '' ? undefined : host;
  } catch {
    return undefined;
  }
}

/**
 * Validates a `url`: ≤ 2048 UTF-8 bytes, no byte in `[\x00-\x20\x7f]`, parses, scheme `https`, and its
 * host (with port) equals the host of `repoUrl` (the repository's `html_url` or `web_url`).
 *
 * The stored value is the WHATWG serialisation (`URL.href`), so every later reader of the value sees
 * the host this check saw (a raw `https://a.com\@b.com` would mean different hosts to different
 * parsers). For every real delivery the serialisation equals the input.
 */
export function checkUrl(value: unknown, repoUrl: unknown): Check<string> {
  if (typeof value !== 'string') return fail('url_type');
  if (utf8Length(value) > URL_MAX_BYTES) return fail('url_length');
  if (URL_FORBIDDEN.test(value)) return fail('url_control');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return fail('url_parse');
  }
  if (parsed.protocol !== 'https:') return fail('url_https');
  const expected = hostOf(repoUrl);
  if (expected === undefined || parsed.host !== expected) return fail('url_host');
  const href = parsed.href;
  // Serialisation can percent-encode and so lengthen; the stored value obeys the cap too.
  if (utf8Length(href) > URL_MAX_BYTES) return fail('url_length');
  return { ok: true, value: href };
}

/** Validates a `sha`: 40 or 64 lowercase hex digits. */
export function checkSha(value: unknown): Check<string> {
  return typeof value === 'string' && SHA_PATTERN.test(value) ? { ok: true, value } : fail('sha_pattern');
}

/** Validates an `actor` name's shape (trust is a separate step, see `extract`). */
export function checkActor(value: unknown): Check<string> {
  return typeof value === 'string' && ACTOR_PATTERN.test(value) ? { ok: true, value } : fail('actor_pattern');
}

/** Validates a `meta.<key>` key. */
export function checkMetaKey(key: unknown): Check<string> {
  return typeof key === 'string' && META_KEY_PATTERN.test(key) ? { ok: true, value: key } : fail('meta_key');
}

/** Validates a `meta.<key>` value: a JSON string matching the meta value pattern. */
export function checkMetaValue(value: unknown): Check<string> {
  return typeof value === 'string' && META_VALUE_PATTERN.test(value)
    ? { ok: true, value }
    : fail('meta_value');
}

/** Whether a string is a valid `event.id`. */
export function isEventId(value: unknown): value is string {
  return typeof value === 'string' && EVENT_ID_PATTERN.test(value);
}
