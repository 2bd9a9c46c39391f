// A passkey's COSE public key as SPKI DER: the form a signed decision carries, so a verifier needs
// nothing but node:crypto. The console accepts ES256 (P-256) and Ed25519 passkeys only.
import { createPublicKey } from 'node:crypto';
import { cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';

/** The COSE algorithms the console accepts, most preferred first: Ed25519, then ES256. */
export const PASSKEY_ALGORITHMS = [cose.COSEALG.EdDSA, cose.COSEALG.ES256];

const b64 = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('base64url');

/** The SPKI DER (base64url) and the algorithm of a COSE public key; throws on any other key. */
export function spkiOfCose(coseKey: Uint8Array): { spki: string; algorithm: 'ES256' | 'Ed25519' } {
  // Read as a plain map: the library's COSE type narrows each label to one key type.
  const key = decodeCredentialPublicKey(new Uint8Array(coseKey)) as unknown as Map<number, unknown>;
  const kty = key.get(cose.COSEKEYS.kty);
  const crv = key.get(cose.COSEKEYS.crv);
  const x = key.get(cose.COSEKEYS.x) as Uint8Array | undefined;
  if (kty === cose.COSEKTY.EC2 && crv === cose.COSECRV.P256) {
    const y = key.get(cose.COSEKEYS.y) as Uint8Array | undefined;
    const jwk = { kty: 'EC', crv: 'P-256', x: b64(x), y: b64(y) };
    return { spki: der(jwk), algorithm: 'ES256' };
  }
  if (kty === cose.COSEKTY.OKP && crv === cose.COSECRV.ED25519) {
    return { spki: der({ kty: 'OKP', crv: 'Ed25519', x: b64(x) }), algorithm: 'Ed25519' };
  }
  throw new Error(
    `a passkey of key type ${String(kty)} and curve ${String(crv)}; the console accepts ES256 and Ed25519`,
  );
}

function der(jwk: Record<string, string>): string {
  return createPublicKey({ key: jwk, format: 'jwk' })
    .export({ format: 'der', type: 'spki' })
    .toString('base64url');
}
