// A software passkey for the server-level tests (no browser): a P-256 key made with node:crypto,
// answering the console's registration and assertion requests as an authenticator would (attestation
// `none`, user present and verified, a counter that counts). The browser tests use Chromium's own
// virtual authenticator instead.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

/** What the fake signs a challenge as: by default the challenge it was asked for. */
export interface FakeAuthenticator {
  readonly credentialId: string;
  /** A `RegistrationResponseJSON` for the console's registration options. */
  register(options: { challenge: string; rp: { id?: string } }, origin: string): Record<string, unknown>;
  /** An `AuthenticationResponseJSON` signing `challenge` (base64url) for `rpId` at `origin`. */
  assert(challenge: string, rpId: string, origin: string): Record<string, unknown>;
}

export function fakeAuthenticator(): FakeAuthenticator {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const id = randomBytes(16);
  let counter = 0;
  const authData = (rpId: string, flags: number, extra: Uint8Array = new Uint8Array()) => {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(++counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, extra]);
  };
  return {
    credentialId: b64(id),
    register(options, origin) {
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const clientDataJSON = JSON.stringify({
        type: 'webauthn.create',
        challenge: options.challenge,
        origin,
      });
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(id.length);
      const attested = Buffer.concat([Buffer.alloc(16), idLength, id, coseKey(publicKey)]);
      // Flags: user present (0x01), user verified (0x04), attested credential data (0x40).
      const data = authData(rpId, 0x45, attested);
      const attestationObject = isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', new Uint8Array(data)],
        ]) as never,
      );
      return {
        id: b64(id),
        rawId: b64(id),
        type: 'public-key',
        response: {
          clientDataJSON: b64(Buffer.from(clientDataJSON)),
          attestationObject: b64(attestationObject),
          transports: ['internal'],
        },
        clientExtensionResults: {},
      };
    },
    assert(challenge, rpId, origin) {
      const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin }));
      const data = authData(rpId, 0x05);
      return {
        id: b64(id),
        rawId: b64(id),
        type: 'public-key',
        response: {
          clientDataJSON: b64(clientDataJSON),
          authenticatorData: b64(data),
          signature: b64(sign('sha256', Buffer.concat([data, sha256(clientDataJSON)]), privateKey)),
        },
        clientExtensionResults: {},
      };
    },
  };
}

/** The COSE form (EC2, ES256, P-256) of a public key. */
function coseKey(key: KeyObject): Uint8Array {
  const jwk = key.export({ format: 'jwk' }) as { x: string; y: string };
  return isoCBOR.encode(
    new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y, 'base64url'))],
    ]) as never,
  );
}
