// The signature of a webhook notice (docs/notify.md, "Verifying a webhook"): HMAC-SHA256, keyed
// with the target's secret, over `<timestamp>.<body>` — the timestamp header's value, a dot, and the
// body's exact bytes — so a receiver can refuse a replayed body as well as a forged one.
import { createHmac } from 'node:crypto';

/** The header carrying the signature: `sha256=<lowercase hex>`. */
export const SIGNATURE_HEADER = 'x-harness-signature';
/** The header carrying the signing time, whole seconds since the Unix epoch. */
export const TIMESTAMP_HEADER = 'x-harness-timestamp';

/** The signature header's value for `body` signed at `timestamp` (Unix seconds) with `secret`. */
export function signNotice(secret: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(body, 'utf8').digest('hex');
  return `sha256=${mac}`;
}
