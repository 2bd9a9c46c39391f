// The console's passkeys, in `<instance>/console-passkeys.db` (SQLite, the console's own file, not
// the instance's store): each credential's id, the relying party (host name) it was made for, its
// public key (COSE, what the WebAuthn library checks with, and SPKI DER, what a signed decision
// carries for an offline verifier), signature counter, label, and when it was created and last
// used; and the one user handle the passkeys belong to. A console sees only the passkeys of its own
// relying party: one made at another address cannot sign here.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const PASSKEYS_DB = 'console-passkeys.db';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS passkeys (
  id TEXT PRIMARY KEY,
  rp_id TEXT NOT NULL,
  cose TEXT NOT NULL,
  spki TEXT NOT NULL,
  algorithm TEXT NOT NULL,
  counter INTEGER NOT NULL,
  label TEXT NOT NULL,
  transports TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE TABLE IF NOT EXISTS passkey_user (one INTEGER PRIMARY KEY CHECK (one = 1), handle TEXT NOT NULL);
`;

/** One enrolled passkey. Binary fields are base64url. */
export interface Passkey {
  id: string;
  /** The COSE public key the authenticator gave. */
  cose: string;
  /** The same key as SPKI DER. */
  spki: string;
  algorithm: 'ES256' | 'Ed25519';
  counter: number;
  label: string;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

type PasskeyRow = Omit<Passkey, 'transports'> & { transports: string; rp_id: string };

const passkeyOf = ({ rp_id: _, ...r }: PasskeyRow): Passkey => ({
  ...r,
  transports: JSON.parse(r.transports) as string[],
});

/** The passkeys of one console, for its relying party `rpId`. */
export class PasskeyStore {
  private readonly db: Database.Database;

  constructor(
    instanceDir: string,
    private readonly rpId: () => string,
  ) {
    this.db = new Database(join(instanceDir, PASSKEYS_DB));
    this.db.pragma('journal_mode = WAL');
    this.db.exec(SCHEMA);
  }

  /** How many passkeys are enrolled. */
  count(): number {
    return (
      this.db.prepare('SELECT COUNT(*) AS n FROM passkeys WHERE rp_id = ?').get(this.rpId()) as { n: number }
    ).n;
  }

  /** Every passkey, oldest first. */
  list(): Passkey[] {
    return (
      this.db
        .prepare('SELECT * FROM passkeys WHERE rp_id = ? ORDER BY created_at, id')
        .all(this.rpId()) as PasskeyRow[]
    ).map(passkeyOf);
  }

  get(id: string): Passkey | undefined {
    const row = this.db.prepare('SELECT * FROM passkeys WHERE id = ? AND rp_id = ?').get(id, this.rpId()) as
      | PasskeyRow
      | undefined;
    return row === undefined ? undefined : passkeyOf(row);
  }

  /** The WebAuthn user handle every passkey of this console is created for (made once). */
  userHandle(): Uint8Array {
    const row = this.db.prepare('SELECT handle FROM passkey_user WHERE one = 1').get() as
      | { handle: string }
      | undefined;
    if (row !== undefined) return new Uint8Array(Buffer.from(row.handle, 'base64url'));
    const handle = randomBytes(16).toString('base64url');
    this.db.prepare('INSERT OR IGNORE INTO passkey_user (one, handle) VALUES (1, ?)').run(handle);
    return this.userHandle();
  }

  add(key: Omit<Passkey, 'last_used_at'>): void {
    this.db
      .prepare(
        'INSERT INTO passkeys (id, rp_id, cose, spki, algorithm, counter, label, transports, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)',
      )
      .run(
        key.id,
        this.rpId(),
        key.cose,
        key.spki,
        key.algorithm,
        key.counter,
        key.label,
        JSON.stringify(key.transports),
        key.created_at,
      );
  }

  /** Records a use: the authenticator's new signature counter and the time. */
  used(id: string, counter: number, at: Date = new Date()): void {
    this.db
      .prepare('UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ?')
      .run(counter, at.toISOString(), id);
  }

  close(): void {
    this.db.close();
  }
}
