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

/**
 * Replaces every occurrence of each secret in `text` with `[redacted]`. Longer secrets go first so
 * one that contains another is removed whole. With `truncated`, a tail of `text` that is a prefix of
 * a secret (output cut by the ceiling in the middle of it) is redacted too.
 */
export function redact(text: string, secrets: readonly string[], truncated = false): string {
  if (secrets.length === 0 || text === '') return text;
  const sorted = [...secrets].filter((s) => s !== '').sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of sorted) out = out.split(secret).join(REDACTED);
  if (truncated) {
    for (const secret of sorted) {
      for (let k = Math.min(secret.length - 1, out.length); k >= 4; k--) {
        if (out.endsWith(secret.slice(0, k))) {
          out = out.slice(0, out.length - k) + REDACTED;
          break;
        }
      }
    }
  }
  return out;
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
