// The instance's Ed25519 key: created with the instance (private key mode 0600), it signs the
// checkpoints of the instance's audit chain and the trailer of its exports. Its public key, as
// text (`ed25519:<base64url of the 32 raw bytes>`), is what a verifier pins (docs/audit.md).
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { chmodSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError, StoreErrorCode } from './errors';
import type { AuditSigner } from './types';

/** The file in an instance directory holding its private key (PKCS #8 PEM, mode 0600). */
export const AUDIT_KEY_FILE = 'audit-key.pem';

const PREFIX = 'ed25519:';

/** The public key of a private (or public) key object, as text: `ed25519:<base64url>`. */
export function publicKeyText(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const { x } = publicKey.export({ format: 'jwk' }) as { x?: string };
  if (publicKey.asymmetricKeyType !== 'ed25519' || x === undefined) {
    throw new StoreError(StoreErrorCode.audit_key, 'the audit key must be an Ed25519 key');
  }
  return `${PREFIX}${x}`;
}

/**
 * A public key from its text (`ed25519:<base64url>`) or a PEM (SPKI) public key; a `audit_key`
 * StoreError says what was wrong.
 */
export function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith(PREFIX)) {
      const x = trimmed.slice(PREFIX.length);
      if (!/^[A-Za-z0-9_-]{43}$/.test(x)) throw new Error('not 32 bytes of base64url');
      return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    }
    const key = createPublicKey(trimmed);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`a ${key.asymmetricKeyType} key`);
    return key;
  } catch (cause) {
    throw new StoreError(
      StoreErrorCode.audit_key,
      `a public key must be ed25519:<base64url> (as \`harness doctor\` prints it) or an Ed25519 PEM public key; this one is not (${(cause as Error).message})`,
      { cause },
    );
  }
}

/** A public key given as text or PEM, as `ed25519:<base64url>`; an `audit_key` StoreError when it is neither. */
export function normalizePublicKey(text: string): string {
  return publicKeyText(parsePublicKey(text));
}

/** The chain an instance key appends to: the first 16 hex digits of SHA-256 over its raw public key. */
export function chainOf(publicKey: string): string {
  const raw = Buffer.from(publicKey.slice(PREFIX.length), 'base64url');
  return createHash('sha256').update(raw).digest('hex').slice(0, 16);
}

/** True when `signature` (base64) is `publicKey`'s Ed25519 signature of `message`. */
export function verifySignature(publicKey: string, message: string, signature: string): boolean {
  try {
    return verify(null, Buffer.from(message), parsePublicKey(publicKey), Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** The signer of a private key: its chain, its public key, and Ed25519 signatures (base64). */
export function auditSigner(privateKey: KeyObject): AuditSigner {
  const publicKey = publicKeyText(privateKey);
  return {
    chain: chainOf(publicKey),
    publicKey,
    sign: (message) => sign(null, Buffer.from(message), privateKey).toString('base64'),
  };
}

/**
 * Creates the instance key in `dir` unless one is there: written beside its final name (mode 0600)
 * and linked into place, so two processes creating it at once end with one key, never a half one.
 */
export function ensureAuditKey(dir: string): void {
  const file = join(dir, AUDIT_KEY_FILE);
  const { privateKey } = generateKeyPairSync('ed25519');
  const staging = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(staging, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  try {
    chmodSync(staging, 0o600);
    linkSync(staging, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new StoreError(
        StoreErrorCode.audit_key,
        `could not create the audit key ${file}: ${(error as Error).message}; check the instance directory is writable`,
        { cause: error },
      );
    }
  } finally {
    rmSync(staging, { force: true });
  }
}

/** The signer of the key in instance directory `dir`; an `audit_key` StoreError when it cannot be read. */
export function readAuditSigner(dir: string): AuditSigner {
  const file = join(dir, AUDIT_KEY_FILE);
  try {
    return auditSigner(createPrivateKey(readFileSync(file)));
  } catch (cause) {
    if (cause instanceof StoreError) throw cause;
    throw new StoreError(
      StoreErrorCode.audit_key,
      `could not read the instance's audit key ${file}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}; an instance made before audit keys gets one the next time a broker opens it`,
      { cause },
    );
  }
}

/**
 * The signer of instance directory `dir`, creating its key when the instance predates keys;
 * `undefined` when there is none and none can be made (a directory this user may only read).
 */
export function instanceAuditSigner(dir: string): AuditSigner | undefined {
  try {
    return readAuditSigner(dir);
  } catch {
    try {
      ensureAuditKey(dir);
      return readAuditSigner(dir);
    } catch {
      return undefined;
    }
  }
}
