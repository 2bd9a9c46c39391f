// Small readers of what a browser sends back from a WebAuthn ceremony, before the library checks it.
import type { WebAuthnCredential } from '@simplewebauthn/server';
import type { Passkey } from './store';

/** A `PublicKeyCredential` as JSON (registration or assertion), as far as the console reads it first. */
export interface WebAuthnResponse {
  id?: unknown;
  response?: { clientDataJSON?: unknown };
}

/** The challenge the browser says it signed (base64url), read from clientDataJSON; unchecked. */
export function clientChallenge(response: WebAuthnResponse | undefined): string | undefined {
  const data = response?.response?.clientDataJSON;
  if (typeof data !== 'string') return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof parsed.challenge === 'string' ? parsed.challenge : undefined;
  } catch {
    return undefined;
  }
}

/** An enrolled passkey as the WebAuthn library verifies an assertion with it. */
export function credentialOf(passkey: Passkey): WebAuthnCredential {
  return {
    id: passkey.id,
    publicKey: new Uint8Array(Buffer.from(passkey.cose, 'base64url')),
    counter: passkey.counter,
    transports: passkey.transports,
  };
}
