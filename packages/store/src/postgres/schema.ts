// The PostgreSQL schema: versioned migrations, applied by `loom init --store postgres` and
// `loom migrate`, and the check every store open makes (a host never runs on a schema it does not
// know). Several hosts share one database, so no host migrates on its own at start.
import { StoreError, StoreErrorCode } from '../errors';
import type { PostgresTarget } from '../types';
import { lockKey, type PgDb, type Tx } from './client';
import { describePostgres } from './target';

/**
 * The steps from one schema version to the next: `MIGRATIONS[i]` takes version `i` to `i + 1`
 * (version 0: the schema holds no tables). Append only; never change a step that has shipped.
 * Tables mirror the SQLite store's; JSON stays text so a value reads back as it was written.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE looms (
     id TEXT PRIMARY KEY, version INTEGER NOT NULL, focus TEXT,
     created_at TEXT NOT NULL, updated_at TEXT NOT NULL, created_by TEXT NOT NULL, run TEXT NOT NULL
   );
   CREATE INDEX looms_updated ON looms (updated_at DESC, id);
   CREATE TABLE components (
     id TEXT PRIMARY KEY, loom_id TEXT NOT NULL REFERENCES looms(id), position INTEGER NOT NULL,
     ref TEXT NOT NULL, title TEXT, stage TEXT, placed_seq INTEGER NOT NULL,
     added_version INTEGER NOT NULL, added_by TEXT NOT NULL
   );
   CREATE INDEX components_loom ON components (loom_id, position);
   CREATE TABLE operations (
     id TEXT PRIMARY KEY, loom_id TEXT NOT NULL REFERENCES looms(id), version INTEGER NOT NULL,
     kind TEXT NOT NULL, component_id TEXT, namespace TEXT NOT NULL, request_id TEXT NOT NULL
   );
   CREATE TABLE receipts (
     seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, namespace TEXT NOT NULL,
     request_id TEXT NOT NULL, args_hash TEXT NOT NULL, loom_id TEXT NOT NULL, version INTEGER NOT NULL,
     created BOOLEAN NOT NULL, component_ids TEXT NOT NULL, operation_ids TEXT NOT NULL,
     displaced TEXT NOT NULL, committed_at TEXT NOT NULL,
     attempt TEXT NOT NULL,
     UNIQUE (namespace, request_id)
   );
   CREATE INDEX receipts_namespace ON receipts (namespace, seq);
   CREATE INDEX receipts_loom ON receipts (loom_id, seq);
   CREATE TABLE audit (
     seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at TEXT NOT NULL, run TEXT NOT NULL,
     actor TEXT NOT NULL, job TEXT, command TEXT NOT NULL, action TEXT NOT NULL, phase TEXT NOT NULL,
     outcome TEXT NOT NULL, code TEXT NOT NULL, reason TEXT, payload TEXT NOT NULL
   );
   CREATE INDEX audit_actor ON audit (actor, seq);
   CREATE INDEX audit_command ON audit (command, seq);
   CREATE INDEX audit_outcome ON audit (outcome, seq);
   CREATE INDEX audit_at ON audit (at, seq);
   CREATE TABLE audit_clock (id INTEGER PRIMARY KEY CHECK (id = 1), at TEXT NOT NULL);
   INSERT INTO audit_clock VALUES (1, '');
   CREATE TABLE approvals (
     id TEXT PRIMARY KEY, key TEXT NOT NULL, command TEXT NOT NULL, agent TEXT NOT NULL,
     run TEXT NOT NULL, action TEXT NOT NULL, reason TEXT NOT NULL, arg_names TEXT NOT NULL,
     args TEXT, argv TEXT, tier TEXT, status TEXT NOT NULL, created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL, decided_at TEXT, decided_by TEXT, consumed_at TEXT,
     ordinal BIGINT GENERATED ALWAYS AS IDENTITY
   );
   CREATE INDEX approvals_key ON approvals (key, status);
   CREATE INDEX approvals_status ON approvals (status, created_at);`,
  // 2: the audit log is a hash chain per host (instance key), with signed checkpoints
  // (docs/audit.md). Events written before stay without chain fields. An approval keeps the hash
  // of the plan it approves, how its decision was given and the person's signed assertion (a
  // passkey's, from the console); each announcement of an approval to a notify target is a row of
  // approval_notices, its delivery log.
  `ALTER TABLE approvals ADD COLUMN plan_hash TEXT, ADD COLUMN decided_via TEXT;
   ALTER TABLE audit ADD COLUMN chain TEXT, ADD COLUMN chain_n BIGINT, ADD COLUMN prev TEXT, ADD COLUMN hash TEXT;
   CREATE TABLE audit_heads (chain TEXT PRIMARY KEY, n BIGINT NOT NULL, head TEXT NOT NULL);
   CREATE TABLE audit_checkpoints (
     id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, chain TEXT NOT NULL, n BIGINT NOT NULL,
     head TEXT NOT NULL, at TEXT NOT NULL, kind TEXT NOT NULL, removed BIGINT NOT NULL,
     public_key TEXT NOT NULL, signature TEXT NOT NULL
   );
   CREATE INDEX audit_checkpoints_chain ON audit_checkpoints (chain, n);
   ALTER TABLE approvals ADD COLUMN assertion TEXT;
   CREATE TABLE approval_notices (
     id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, approval TEXT NOT NULL, target TEXT NOT NULL,
     event TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL, http_status INTEGER,
     error TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (approval, target, event)
   );
   CREATE INDEX approval_notices_approval ON approval_notices (approval);`,
  // 3: an approval shows what its plan covers beyond the argv (the program's and each project
  // file's bytes' hashes, the cwd's real path) and keeps the client session it is bound to.
  `ALTER TABLE approvals ADD COLUMN plan TEXT, ADD COLUMN session TEXT;`,
  // 4: an approval keeps what a person judges it by: the command's display line with the call's
  // values, and what its preview (a read command run confined) showed.
  `ALTER TABLE approvals ADD COLUMN display TEXT, ADD COLUMN preview TEXT;`,
  // 5: pinned definitions of MCP server tools (docs/servers.md, "Pinned definitions"): the hash a
  // person accepted per (server, tool), and when each definition no person accepted first appeared.
  `CREATE TABLE tool_pins (
     server TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, definition TEXT NOT NULL, accepted_at TEXT NOT NULL,
     accepted_by TEXT NOT NULL, via TEXT NOT NULL, PRIMARY KEY (server, tool)
   );
   CREATE TABLE tool_sightings (
     server TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, first_seen TEXT NOT NULL,
     rejected_at TEXT, rejected_by TEXT, PRIMARY KEY (server, tool, hash)
   );`,
  // 6: a sighting keeps the definition listed (the RFC 8785 JSON text its hash is over) and when it
  // was last listed, so a review needs only the store (the console's Servers view). A sighting
  // recorded before has no definition, and was last seen when first seen.
  `ALTER TABLE tool_sightings ADD COLUMN definition TEXT, ADD COLUMN last_seen TEXT;
   UPDATE tool_sightings SET last_seen = first_seen;
   ALTER TABLE tool_sightings ALTER COLUMN last_seen SET NOT NULL;`,
];

/** The schema version this code reads and writes. */
export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/** The version a schema is at: 0 when it holds no `meta` table yet. */
async function versionIn(tx: Tx): Promise<number> {
  const [exists] = await tx.query<{ t: string | null }>("SELECT to_regclass('meta')::text AS t");
  if (exists?.t === null || exists === undefined) return 0;
  const [row] = await tx.query<{ value: string }>("SELECT value FROM meta WHERE key = 'schema'");
  return row === undefined ? 0 : Number(row.value);
}

function newerError(target: PostgresTarget, found: number): StoreError {
  return new StoreError(
    StoreErrorCode.store_schema,
    `the store ${describePostgres(target)} has schema version ${found}, and this host needs version ${PG_SCHEMA_VERSION}; a newer host migrated it: upgrade this host (every host on one database runs a release that knows its schema)`,
  );
}

/**
 * Brings a schema to {@link PG_SCHEMA_VERSION}, creating it (and its tables) when absent, in one
 * transaction under an advisory lock: two hosts migrating at once migrate once. A schema of a
 * newer version is refused. Returns the versions before and after.
 */
export async function migratePostgres(db: PgDb): Promise<{ from: number; to: number }> {
  const { schema } = db.target;
  return db.tx(
    'migrate the schema',
    async (tx) => {
      await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      const from = await versionIn(tx);
      if (!Number.isInteger(from) || from > PG_SCHEMA_VERSION) throw newerError(db.target, from);
      for (let v = from; v < PG_SCHEMA_VERSION; v++) await tx.query(MIGRATIONS[v] as string);
      await tx.query(
        "INSERT INTO meta (key, value) VALUES ('schema', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        [String(PG_SCHEMA_VERSION)],
      );
      return { from, to: PG_SCHEMA_VERSION };
    },
    // Running it again after a lost COMMIT finds the schema current: harmless.
    { idempotent: true, lock: lockKey(`migrate:${schema}`) },
  );
}

/**
 * Refuses a schema this host cannot run on: never migrated, older (run `loom migrate`), or newer
 * (a newer host migrated it). The message names the version found and the version needed.
 */
export async function checkPostgresSchema(db: PgDb): Promise<number> {
  const found = await db.tx('read the schema version', versionIn, { idempotent: true, readOnly: true });
  if (found === PG_SCHEMA_VERSION) return found;
  if (Number.isInteger(found) && found > PG_SCHEMA_VERSION) throw newerError(db.target, found);
  throw new StoreError(
    StoreErrorCode.store_schema,
    `the store ${describePostgres(db.target)} has schema version ${found}, and this host needs version ${PG_SCHEMA_VERSION}; migrate it with \`loom migrate --instance <dir>\` (the instance naming this database)`,
  );
}
