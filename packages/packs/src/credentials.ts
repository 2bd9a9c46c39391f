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

/**
 * Replaces every occurrence of each secret in `text` with `[redacted]`. Longer secrets go first so
 * one that contains another is removed whole.
 *
 * With `truncated` (output cut by the ceiling), a cut may fall inside a secret and leave a piece of
 * it that no whole-value match finds. So at every cut — before and after each of `@harness/exec`'s
 * "bytes dropped" markers, and at the end of the text (killed mid-write) — a window as long as the
 * longest secret is dropped **unconditionally**. Whether the text there matches a piece of a secret
 * is never looked at: replacing only matching pieces made `[redacted]` appear or not, an oracle
 * that recovered a 40-character token one guess at a time. What comes out depends on the text and
 * on the secrets' lengths only, except where a whole secret occurs.
 */
export function redact(text: string, secrets: readonly string[], truncated = false): string {
  if (secrets.length === 0 || text === '') return text;
  const sorted = [...secrets].filter((s) => s !== '').sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of sorted) out = out.split(secret).join(REDACTED);
  if (!truncated) return out;
  const window = sorted[0]?.length ?? 0;
  const parts = out.split(DROP_MARKER);
  for (let i = 0; i < parts.length; i += 2) {
    let part = parts[i] as string;
    if (i > 0) part = part.slice(window);
    parts[i] = part.slice(0, Math.max(0, part.length - window));
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
