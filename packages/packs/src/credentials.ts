import type { CredentialSource } from './types';

/** The placeholder every credential value becomes in output, errors and audit payloads. */
export const REDACTED = '[redacted]';

/**
 * A credential source over a fixed record (`{ gh_token: '…' }`). The host builds one from its own
 * configuration (a secrets file, its environment); this package never reads `process.env` for
 * credentials.
 */
export function credentialsFrom(values: Readonly<Record<string, string>>): CredentialSource {
  const copy = new Map(Object.entries(values));
  return { get: (name) => copy.get(name) };
}

// The marker @harness/exec puts where a stream lost bytes (`truncationMarker`): text before it ends
// at the head's cut and text after it starts at the tail's, so either may hold a piece of a secret.
const DROP_MARKER = /(\n\[\.\.\. \d+ bytes dropped \.\.\.\]\n)/;
// Shorter pieces are left alone: they carry little of a secret and match ordinary text too often.
const MIN_PIECE = 4;

/** `text` with a tail that is a prefix (≥ MIN_PIECE characters) of a secret replaced. */
function cutEnd(text: string, sorted: readonly string[]): string {
  for (const secret of sorted) {
    for (let k = Math.min(secret.length - 1, text.length); k >= MIN_PIECE; k--) {
      if (text.endsWith(secret.slice(0, k))) return text.slice(0, text.length - k) + REDACTED;
    }
  }
  return text;
}

/** `text` with a head that is a suffix (≥ MIN_PIECE characters) of a secret replaced. */
function cutStart(text: string, sorted: readonly string[]): string {
  for (const secret of sorted) {
    for (let k = Math.min(secret.length - 1, text.length); k >= MIN_PIECE; k--) {
      if (text.startsWith(secret.slice(secret.length - k))) return REDACTED + text.slice(k);
    }
  }
  return text;
}

/**
 * Replaces every occurrence of each secret in `text` with `[redacted]`. Longer secrets go first so
 * one that contains another is removed whole. With `truncated` (output cut by the ceiling), the
 * pieces of a secret the cut left behind are redacted too: a prefix at the very end of `text`
 * (killed in the middle of it), and on either side of each of `@harness/exec`'s "bytes dropped"
 * markers a prefix before it and a suffix after it, so a secret placed across the head/tail cut does
 * not come back in two halves.
 */
export function redact(text: string, secrets: readonly string[], truncated = false): string {
  if (secrets.length === 0 || text === '') return text;
  const sorted = [...secrets].filter((s) => s !== '').sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of sorted) out = out.split(secret).join(REDACTED);
  if (!truncated) return out;
  const parts = out.split(DROP_MARKER);
  for (let i = 0; i < parts.length; i += 2) {
    let part = parts[i] as string;
    if (i > 0) part = cutStart(part, sorted);
    part = cutEnd(part, sorted);
    parts[i] = part;
  }
  return parts.join('');
}

/** Deep copy of a JSON-like value with every secret redacted from every string in it. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k, secrets), walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}
