// The instance's Ed25519 key: created with the instance (private key mode 0600), it signs the
// checkpoints of the instance's audit chain and the trailer of its exports. Its public key, as
// text (`ed25519:<base64url of the 32 raw bytes>`), is what a verifier pins (docs/audit.md), and
// it is recorded in the person's user config, outside the instance, where a process confined by
// the instance's sandboxes cannot rewrite it ("Where the key is recorded").
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
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

/** The environment variables the recorded key's place reads (`XDG_CONFIG_HOME`, `HOME`). */
export type AuditKeyEnv = Readonly<Record<string, string | undefined>>;

/**
 * Where the public key of the instance at `instanceDir` is recorded, outside the instance and out of
 * every sandbox's sight: `$XDG_CONFIG_HOME/harness/audit-keys/<first 32 hex digits of SHA-256 of the
 * instance's real path>.pub` (`~/.config/…` when `XDG_CONFIG_HOME` is unset or relative).
 */
export function auditKeyRecordFile(instanceDir: string, env: AuditKeyEnv = process.env): string {
  const config = env.XDG_CONFIG_HOME;
  const home = config !== undefined && isAbsolute(config) ? config : join(env.HOME || homedir(), '.config');
  const name = createHash('sha256').update(realPath(instanceDir)).digest('hex').slice(0, 32);
  return join(home, 'harness', 'audit-keys', `${name}.pub`);
}

/** The real path of a directory, or its absolute path when it does not exist (yet). */
function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

const PEM_BLOCK = /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g;

/**
 * The keys a key file holds, as `ed25519:<base64url>`, each once: PEM public keys, and
 * `ed25519:…` lines; blank lines and `#` comments are skipped. An `audit_key` StoreError names a
 * line that is neither, or a file that holds no key.
 */
export function publicKeysIn(text: string, where = 'the key file'): string[] {
  const keys = new Set<string>();
  for (const pem of text.match(PEM_BLOCK) ?? []) keys.add(normalizePublicKey(pem));
  const lines = text.replace(PEM_BLOCK, '').split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!line.startsWith(PREFIX)) {
      throw new StoreError(
        StoreErrorCode.audit_key,
        `${where}, line ${i + 1}, is neither a key (ed25519:…), a PEM public key nor a # comment`,
      );
    }
    keys.add(normalizePublicKey(line));
  }
  if (keys.size === 0) {
    throw new StoreError(
      StoreErrorCode.audit_key,
      `${where} holds no key; it needs a line ed25519:… (as \`harness doctor\` prints it) or a PEM public key`,
    );
  }
  return [...keys];
}

/** The key recorded for an instance, and the file it is recorded in. */
export interface RecordedAuditKey {
  publicKey: string;
  file: string;
}

/**
 * The key recorded for the instance at `instanceDir` ({@link auditKeyRecordFile}); `undefined` when
 * none is. An `audit_key` StoreError when the record cannot be read or does not hold exactly one key.
 */
export function readRecordedAuditKey(
  instanceDir: string,
  env: AuditKeyEnv = process.env,
): RecordedAuditKey | undefined {
  const file = auditKeyRecordFile(instanceDir, env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StoreError(
      StoreErrorCode.audit_key,
      `could not read the recorded audit key ${file}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`,
      { cause },
    );
  }
  const keys = publicKeysIn(text, file);
  if (keys.length !== 1) {
    throw new StoreError(
      StoreErrorCode.audit_key,
      `${file} records ${keys.length} different keys where one belongs: it was changed; compare it with the key you kept elsewhere`,
    );
  }
  return { publicKey: keys[0] as string, file };
}

/** What {@link recordAuditKey} did: wrote a record, found the same key recorded, or replaced another. */
export type AuditKeyRecording = RecordedAuditKey & { status: 'recorded' | 'unchanged' | 'replaced' };

/**
 * Records `publicKey` as the key of the instance at `instanceDir`, in the person's user config
 * ({@link auditKeyRecordFile}), as an `ed25519:…` line and a PEM public key. A record is written
 * once: one holding another key stays, an `audit_key` StoreError, unless `replace` (a new instance
 * made at the path of a removed one).
 */
export function recordAuditKey(
  instanceDir: string,
  publicKey: string,
  options: { replace?: boolean; env?: AuditKeyEnv } = {},
): AuditKeyRecording {
  const file = auditKeyRecordFile(instanceDir, options.env);
  const key = parsePublicKey(publicKey);
  const text = publicKeyText(key);
  const pem = key.export({ format: 'pem', type: 'spki' }).toString();
  const body =
    `# The audit public key of the instance ${JSON.stringify(realPath(instanceDir))}, recorded ${new Date().toISOString()}.\n` +
    `# loom audit verify checks the instance's audit chain against it; harness doctor prints it.\n` +
    `${text}\n${pem}`;
  const staging = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(staging, body, { mode: 0o644 });
    try {
      // Linked, not renamed, into place: a record already there is never replaced by accident.
      linkSync(staging, file);
      return { publicKey: text, file, status: 'recorded' };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let recorded: string | undefined;
    try {
      recorded = readRecordedAuditKey(instanceDir, options.env)?.publicKey;
    } catch {
      // An unreadable record is not this key: replaced when asked, refused otherwise.
    }
    if (recorded === text) return { publicKey: text, file, status: 'unchanged' };
    if (options.replace !== true) {
      throw new StoreError(
        StoreErrorCode.audit_key,
        `${file} records another key for this instance (${recorded ?? 'unreadable'}), not ${text}; if the instance was made again at this path, remove that file and record the new key`,
      );
    }
    renameSync(staging, file);
    return { publicKey: text, file, status: 'replaced' };
  } catch (cause) {
    if (cause instanceof StoreError) throw cause;
    throw new StoreError(
      StoreErrorCode.audit_key,
      `could not record the audit key in ${file}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}; check that the directory is writable`,
      { cause },
    );
  } finally {
    rmSync(staging, { force: true });
  }
}

/**
 * Records the key of the instance just created at `instanceDir` (its `audit-key.pem`'s public key),
 * replacing the record of a removed instance made at the same path: what creating an instance does.
 */
export function recordNewInstanceKey(instanceDir: string, env: AuditKeyEnv = process.env): AuditKeyRecording {
  return recordAuditKey(instanceDir, readAuditSigner(instanceDir).publicKey, { replace: true, env });
}
