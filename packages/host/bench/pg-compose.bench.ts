// host-pg-compose-throughput: composes per second through the PostgreSQL store (advisory lock on
// the request id, receipt lookup, stage placement, components, operations and receipt in one
// statement, one transaction) against raw inserts of the same rows with the same client (pg), one
// transaction each, in the same run. Target: store throughput ≥ 0.5 × raw.
// Needs PostgreSQL (PGHOST … or 127.0.0.1:5432, database test, user postgres); without it, it says so.
import { randomBytes } from 'node:crypto';
import { migrateStoreTarget, openStoreTarget, postgresTargetFromEnv } from '@harness/store';
import pg from 'pg';
import { composeThroughput, PG_ENV, requirePostgres } from './helpers';

const COMPONENTS = 5;
const BATCH = 100;
const ROUNDS = 9;

await requirePostgres('host-pg-compose-throughput');

const target = postgresTargetFromEnv({ env: PG_ENV, schema: `bench_${randomBytes(4).toString('hex')}` });
await migrateStoreTarget(target);
const store = await openStoreTarget(target);
// The raw side: the same client library and tables, the same rows, no checks, one connection.
const raw = new pg.Client({
  host: target.host,
  port: target.port,
  database: target.database,
  user: target.user,
  options: `-c search_path=${target.schema}`,
});
await raw.connect();
const id = (p: string) => `${p}-${randomBytes(8).toString('hex')}`;
const rows = (n: number, w: number, off = 0) =>
  Array.from(
    { length: n },
    (_, r) => `(${Array.from({ length: w }, (_, k) => `$${off + r * w + k + 1}`).join(', ')})`,
  ).join(', ');

const rawCompose = async (n: number): Promise<void> => {
  const now = new Date().toISOString();
  const loomId = id('loom');
  const comps = Array.from({ length: COMPONENTS }, (_, i) => [
    id('cmp'),
    loomId,
    i,
    `page:p${n}-${i}`,
    i,
    1,
    'agent:bench',
  ]);
  const ops = comps.map((c) => [id('op'), loomId, 1, 'add', c[0], 'bench/agent:bench', `raw-${n}`]);
  await raw.query('BEGIN');
  await raw.query(
    "INSERT INTO looms (id, version, focus, created_at, updated_at, created_by, run) VALUES ($1, 1, NULL, $2, $2, 'agent:bench', 'bench')",
    [loomId, now],
  );
  await raw.query(
    `INSERT INTO components (id, loom_id, position, ref, placed_seq, added_version, added_by) VALUES ${rows(COMPONENTS, 7)}`,
    comps.flat(),
  );
  await raw.query(
    `INSERT INTO operations (id, loom_id, version, kind, component_id, namespace, request_id) VALUES ${rows(COMPONENTS, 7)}`,
    ops.flat(),
  );
  await raw.query(
    "INSERT INTO receipts (namespace, request_id, args_hash, loom_id, version, created, component_ids, operation_ids, displaced, committed_at, attempt) VALUES ('bench/agent:bench', $1, 'h', $2, 1, true, $3, $4, '[]', $5, 'raw')",
    [`raw-${n}`, loomId, JSON.stringify(comps.map((c) => c[0])), JSON.stringify(ops.map((o) => o[0])), now],
  );
  await raw.query('COMMIT');
};

try {
  const setting = async (name: string) => (await raw.query(`SHOW ${name}`)).rows[0]?.[name];
  await composeThroughput({
    name: 'host-pg-compose-throughput',
    store,
    rawCompose,
    batch: BATCH,
    components: COMPONENTS,
    rounds: ROUNDS,
    subjectLabel: `PostgreSQL store.compose (${COMPONENTS} components, request lock, receipt, idempotency, version guard)`,
    anchorLabel: 'raw pg inserts of the same rows, one transaction each, one connection',
    conditions: `PostgreSQL ${await setting('server_version')} on ${target.host}:${target.port}, synchronous_commit ${await setting('synchronous_commit')}`,
  });
} finally {
  await store.close();
  await raw.query(`DROP SCHEMA ${target.schema} CASCADE`);
  await raw.end();
}
