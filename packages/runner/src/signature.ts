// Webhook signatures: HMAC-SHA256 of the raw body with the source's secret, in the header each forge
// uses, compared in constant time. GitHub writes `sha256=<hex>`; Gitea and Forgejo write the bare hex.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The signature header of each scheme (lowercase, as Node presents headers). */
export const SIGNATURE_HEADERS = {
  github: 'x-hub-signature-256',
  gitea: 'x-gitea-signature',
  forgejo: 'x-forgejo-signature',
} as const;
/** The event-name header of each scheme. */
export const EVENT_HEADERS = {
  github: 'x-github-event',
  gitea: 'x-gitea-event',
  forgejo: 'x-forgejo-event',
} as const;
/** The delivery-id header of each scheme. */
export const DELIVERY_HEADERS = {
  github: 'x-github-delivery',
  gitea: 'x-gitea-delivery',
  forgejo: 'x-forgejo-delivery',
} as const;

type Scheme = keyof typeof SIGNATURE_HEADERS;

/** The signature header value a forge of `scheme` would send for `body` signed with `secret`. */
export function signBody(scheme: Scheme, secret: string, body: Uint8Array | string): string {
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  return scheme === 'github' ? `sha256=${hex}` : hex;
}

/**
 * Whether `header` is the signature of `body` under `secret` for `scheme`. The comparison is over
 * the decoded digest bytes in constant time; a missing or malformed header is simply `false`.
 */
export function verifySignature(
  scheme: Scheme,
  secret: string,
  body: Uint8Array,
  header: string | undefined,
): boolean {
  if (header === undefined) return false;
  const hex = scheme === 'github' ? (header.startsWith('sha256=') ? header.slice(7) : '') : header;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}

/**
 * The replay key of a delivery: SHA-256 (hex) of exactly the raw bytes whose signature
 * {@link verifySignature} accepted. Only these bytes are vouched for by the forge; every header
 * beside the signature (delivery id, event name) can be changed by whoever re-posts them.
 */
export function bodyDigest(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}
