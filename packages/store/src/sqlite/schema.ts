// The SQLite schema and how a database file is opened.
import Database from 'better-sqlite3';
import { StoreError, StoreErrorCode } from '../errors';

// The tables as version 1 made them. A file is brought to the current version by MIGRATIONS, so a
// new file and an old one take the same path and end the same.
const SCHEMA_V1 = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS looms (
  id TEXT PRIMARY KEY, version INTEGER NOT NULL, focus TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, created_by TEXT NOT NULL, run TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS components (
  id TEXT PRIMARY KEY, loom_id TEXT NOT NULL REFERENCES looms(id), position INTEGER NOT NULL,
  ref TEXT NOT NULL, title TEXT, stage TEXT, placed_seq INTEGER NOT NULL,
  added_version INTEGER NOT NULL, added_by TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS components_loom ON components(loom_id, position);
CREATE TABLE IF NOT EXISTS operations (
  id TEXT PRIMARY KEY, loom_id TEXT NOT NULL REFERENCES looms(id), version INTEGER NOT NULL,
  kind TEXT NOT NULL, component_id TEXT, namespace TEXT NOT NULL, request_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS receipts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, request_id TEXT NOT NULL,
  args_hash TEXT NOT NULL, loom_id TEXT NOT NULL, version INTEGER NOT NULL, created INTEGER NOT NULL,
  component_ids TEXT NOT NULL, operation_ids TEXT NOT NULL, displaced TEXT NOT NULL,
  committed_at TEXT NOT NULL, UNIQUE (namespace, request_id)
);
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, run TEXT NOT NULL, actor TEXT NOT NULL,
  job TEXT, command TEXT NOT NULL, action TEXT NOT NULL, phase TEXT NOT NULL, outcome TEXT NOT NULL,
  code TEXT NOT NULL, reason TEXT, payload TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS approvals (
  id TEXT PRIMARY KEY, key TEXT NOT NULL, command TEXT NOT NULL, agent TEXT NOT NULL, run TEXT NOT NULL,
  action TEXT NOT NULL, reason TEXT NOT NULL, arg_names TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, expires_at TEXT NOT NULL,
  decided_at TEXT, decided_by TEXT, consumed_at TEXT
);
CREATE INDEX IF NOT EXISTS approvals_key ON approvals(key, status);
`;

/**
 * The steps from one schema version to the next: `MIGRATIONS[i]` takes version `i + 1` to `i + 2`.
 * Append only; never change a step that has shipped.
 */
const MIGRATIONS: readonly string[] = [
  // 2: approvals keep what a person judges (argument values, rendered argv, tier); the audit log
  // is filtered and paged by actor, command, outcome and time (`queryAudit`). An index on one
  // column also holds the rowid (`seq`), so each serves "filter, then order by seq".
  `ALTER TABLE approvals ADD COLUMN args TEXT;
   ALTER TABLE approvals ADD COLUMN argv TEXT;
   ALTER TABLE approvals ADD COLUMN tier TEXT;
   CREATE INDEX IF NOT EXISTS audit_actor ON audit(actor);
   CREATE INDEX IF NOT EXISTS audit_command ON audit(command);
   CREATE INDEX IF NOT EXISTS audit_outcome ON audit(outcome);
   CREATE INDEX IF NOT EXISTS audit_at ON audit(at);
   CREATE INDEX IF NOT EXISTS approvals_status ON approvals(status, created_at);`,
  // 3: the audit log is a hash chain per instance key, with signed checkpoints (docs/audit.md).
  // Events written before stay without chain fields: a verifier counts them apart. An approval
  // keeps the hash of the plan it approves, how its decision was given and the person's signed
  // assertion (a passkey's, from the console); each announcement of an approval to a notify target
  // is a row of approval_notices, its delivery log.
  `ALTER TABLE approvals ADD COLUMN plan_hash TEXT;
   ALTER TABLE approvals ADD COLUMN decided_via TEXT;
   ALTER TABLE audit ADD COLUMN chain TEXT;
   ALTER TABLE audit ADD COLUMN chain_n INTEGER;
   ALTER TABLE audit ADD COLUMN prev TEXT;
   ALTER TABLE audit ADD COLUMN hash TEXT;
   CREATE TABLE IF NOT EXISTS audit_heads (chain TEXT PRIMARY KEY, n INTEGER NOT NULL, head TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS audit_checkpoints (
     id INTEGER PRIMARY KEY AUTOINCREMENT, chain TEXT NOT NULL, n INTEGER NOT NULL, head TEXT NOT NULL,
     at TEXT NOT NULL, kind TEXT NOT NULL, removed INTEGER NOT NULL, public_key TEXT NOT NULL,
     signature TEXT NOT NULL
   );
   CREATE INDEX IF NOT EXISTS audit_checkpoints_chain ON audit_checkpoints(chain, n);
   ALTER TABLE approvals ADD COLUMN assertion TEXT;
   CREATE TABLE IF NOT EXISTS approval_notices (
     id INTEGER PRIMARY KEY AUTOINCREMENT, approval TEXT NOT NULL, target TEXT NOT NULL,
     event TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL, http_status INTEGER,
     error TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (approval, target, event)
   );
   CREATE INDEX IF NOT EXISTS approval_notices_approval ON approval_notices(approval);`,
  // 4: an approval shows what its plan covers beyond the argv (the program's and each project
  // file's bytes' hashes, the cwd's real path) and keeps the client session it is bound to.
  `ALTER TABLE approvals ADD COLUMN plan TEXT;
   ALTER TABLE approvals ADD COLUMN session TEXT;`,
  // 5: an approval keeps what a person judges it by: the command's display line with the call's
  // values, and what its preview (a read command run confined) showed.
  `ALTER TABLE approvals ADD COLUMN display TEXT;
   ALTER TABLE approvals ADD COLUMN preview TEXT;`,
  // 6: pinned definitions of MCP server tools (docs/servers.md, "Pinned definitions"): the hash a
  // person accepted per (server, tool), and when each definition no person accepted first appeared.
  `CREATE TABLE IF NOT EXISTS tool_pins (
     server TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, definition TEXT NOT NULL, accepted_at TEXT NOT NULL,
     accepted_by TEXT NOT NULL, via TEXT NOT NULL, PRIMARY KEY (server, tool)
   );
   CREATE TABLE IF NOT EXISTS tool_sightings (
     server TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, first_seen TEXT NOT NULL,
     rejected_at TEXT, rejected_by TEXT, PRIMARY KEY (server, tool, hash)
   );`,
  // 7: a sighting keeps the definition listed (the RFC 8785 JSON text its hash is over) and when it
  // was last listed, so a review needs only the store (the console's Servers view). A sighting
  // recorded before has no definition, and was last seen when first seen.
  `ALTER TABLE tool_sightings ADD COLUMN definition TEXT;
   ALTER TABLE tool_sightings ADD COLUMN last_seen TEXT;
   UPDATE tool_sightings SET last_seen = first_seen;`,
];

/** The schema version this code writes into `meta`. */
export const SQLITE_SCHEMA_VERSION = MIGRATIONS.length + 1;

/**
 * Creates the tables of a new file and brings any file to {@link SQLITE_SCHEMA_VERSION}, in one
 * `BEGIN IMMEDIATE` transaction: two brokers opening one old file migrate it once. A file written
 * by a newer version is refused rather than guessed at.
 */
function migrate(db: Database.Database, file: string): void {
  db.transaction(() => {
    db.exec(SCHEMA_V1);
    const row = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema'").get();
    const from = row === undefined ? 1 : Number(row.value);
    if (!Number.isInteger(from) || from < 1 || from > SQLITE_SCHEMA_VERSION) {
      throw new StoreError(
        StoreErrorCode.store_schema,
        `the store at ${file} has schema version ${row?.value}, and this version of the host reads 1 to ${SQLITE_SCHEMA_VERSION}; use the newer host that wrote it`,
      );
    }
    for (let v = from; v < SQLITE_SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v - 1] as string);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(
      String(SQLITE_SCHEMA_VERSION),
    );
  }).immediate();
}

/**
 * The page cache of each store connection, in KiB. The SQLite driver's build sets 16 MiB, and a
 * store that only grows fills it as it is written, so a broker that serves for days would hold 16 MiB
 * of pages per connection; the pages it reads again (the recent audit, the approvals) fit in 4 MiB,
 * and the operating system caches the rest of the file.
 */
export const STORE_CACHE_KIB = 4096;

/**
 * Opens (creating when absent) the database at `file`: WAL mode, a busy timeout so that several
 * brokers on one instance wait for each other, a page cache of {@link STORE_CACHE_KIB}, the schema,
 * foreign keys on.
 */
export function openDatabase(file: string, options: { readonly?: boolean } = {}): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, {
      readonly: options.readonly ?? false,
      fileMustExist: options.readonly ?? false,
    });
    db.pragma('busy_timeout = 5000');
    db.pragma(`cache_size = -${STORE_CACHE_KIB}`);
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // SQLite checkpoints the log every 1000 pages; without a limit the -wal file keeps the size
      // of its largest burst for ever. Past a checkpoint it is cut back to 4 MiB.
      db.pragma('journal_size_limit = 4194304');
      migrate(db, file);
    }
    db.pragma('foreign_keys = ON');
    return db;
  } catch (cause) {
    db?.close();
    if (cause instanceof StoreError) throw cause;
    throw new StoreError(
      StoreErrorCode.store,
      `could not open the store at ${file}: ${(cause as Error).message}. Check the instance directory exists and is writable (create one with \`loom init\`).`,
      { cause },
    );
  }
}
