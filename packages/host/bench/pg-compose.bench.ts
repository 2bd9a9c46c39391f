// host-pg-compose-throughput: composes per second through the PostgreSQL store (advisory lock on
// the request id, receipt lookup, stage placement, components, operations and receipt in one
// statement, one transaction) against raw inserts of the same rows with the same client (pg), one
// transaction each, in the same run. Target: store throughput ≥ 0.5 × raw.
// Needs PostgreSQL (PGHOST … or 127.0.0.1:5432, database test, user postgres); without it, it says so.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { writeResult } from '@harness/bench-utils';
import { migrateStoreTarget, openStoreTarget, postgresTargetFromEnv } from '@harness/host';
import pg from 'pg';

const COMPONENTS = 5;
const BATCH = 100;
const ROUNDS = 9;

const env = {
  PGHOST: process.env.PGHOST || '127.0.0.1',
  PGPORT: process.env.PGPORT || '5432',
  PGDATABASE: process.env.PGDATABASE || 'test',
  PGUSER: process.env.PGUSER || 'postgres',
};
const answers = await new Promise<boolean>((resolve) => {
  const s = connect({ host: env.PGHOST, port: Number(env.PGPORT) });
  s.once('connect', () => resolve(true)).once('error', () => resolve(false));
  s.setTimeout(1000, () => resolve(false));
}).finally(() => undefined);
if (!answers) {
  process.stdout.write(
    `host-pg-compose-throughput: skipped, nothing answers on ${env.PGHOST}:${env.PGPORT} (docs/host.md, "Several hosts")\n`,
  );
  process.exit(0);
}

const target = postgresTargetFromEnv({ env, schema: `bench_${randomBytes(4).toString('hex')}` });
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

let seq = 0;
const storeSide = async () => {
  for (let b = 0; b < BATCH; b++) {
    const n = seq++;
    await store.compose({
      namespace: 'bench/agent:bench',
      actor: 'agent:bench',
      run: 'bench',
      requestId: `req-${n}`,
      components: Array.from({ length: COMPONENTS }, (_, i) => ({ ref: `page:p${n}-${i}` })),
      argsHash: 'h',
    });
  }
};
let rseq = 0;
const rawSide = async () => {
  for (let b = 0; b < BATCH; b++) await rawCompose(rseq++);
};
const time = async (fn: () => Promise<void>) => {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};
try {
  await storeSide();
  await rawSide();
  const s: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2) {
      s.push(await time(storeSide));
      r.push(await time(rawSide));
    } else {
      r.push(await time(rawSide));
      s.push(await time(storeSide));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const storeOps = (BATCH / median(s)) * 1000;
  const rawOps = (BATCH / median(r)) * 1000;
  writeResult('host-pg-compose-throughput', {
    unit: 'composes per second',
    subject: {
      label: `PostgreSQL store.compose (${COMPONENTS} components, request lock, receipt, idempotency, version guard)`,
      median: storeOps,
    },
    anchor: {
      label: 'raw pg inserts of the same rows, one transaction each, one connection',
      median: rawOps,
    },
    ratio: storeOps / rawOps,
    target: { ratioAtLeast: 0.5 },
    pass: storeOps / rawOps >= 0.5,
    notes: `medians over ${ROUNDS} interleaved rounds of ${BATCH} composes; PostgreSQL ${(await raw.query('SHOW server_version')).rows[0]?.server_version} on ${target.host}:${target.port}, synchronous_commit ${(await raw.query('SHOW synchronous_commit')).rows[0]?.synchronous_commit}`,
  });
} finally {
  await store.close();
  await raw.query(`DROP SCHEMA ${target.schema} CASCADE`);
  await raw.end();
}
