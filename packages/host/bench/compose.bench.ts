// host-compose-throughput: composes through the store API (idempotency check, version guard, stage
// placement, receipt) against raw better-sqlite3 inserts of the same rows, in the same run.
// Target: store throughput ≥ 0.5 × raw throughput.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStoreTarget } from '@harness/store';
import Database from 'better-sqlite3';
import { composeThroughput } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'host-bench-'));
const COMPONENTS = 5;
const BATCH = 200;
const ROUNDS = 15;

const store = await openStoreTarget({ kind: 'sqlite', file: join(dir, 'store.db') });
// The raw side: the same schema (the store created it in its own file), the same rows, no checks.
const rawSchemaSource = await openStoreTarget({ kind: 'sqlite', file: join(dir, 'raw.db') });
await rawSchemaSource.close();
const raw = new Database(join(dir, 'raw.db'));
raw.pragma('journal_mode = WAL');
raw.pragma('synchronous = NORMAL');
const id = (p: string) => `${p}-${randomBytes(8).toString('hex')}`;
const ins = {
  loom: raw.prepare(
    'INSERT INTO looms (id, version, focus, created_at, updated_at, created_by, run) VALUES (?, 1, NULL, ?, ?, ?, ?)',
  ),
  comp: raw.prepare(
    'INSERT INTO components (id, loom_id, position, ref, title, stage, placed_seq, added_version, added_by) VALUES (?, ?, ?, ?, NULL, NULL, ?, 1, ?)',
  ),
  op: raw.prepare(
    "INSERT INTO operations (id, loom_id, version, kind, component_id, namespace, request_id) VALUES (?, ?, 1, 'add', ?, ?, ?)",
  ),
  receipt: raw.prepare(
    'INSERT INTO receipts (namespace, request_id, args_hash, loom_id, version, created, component_ids, operation_ids, displaced, committed_at) VALUES (?, ?, ?, ?, 1, 1, ?, ?, ?, ?)',
  ),
};
const rawCompose = raw.transaction((n: number) => {
  const now = new Date().toISOString();
  const loomId = id('loom');
  ins.loom.run(loomId, now, now, 'agent:bench', 'bench');
  const cids: string[] = [];
  const oids: string[] = [];
  for (let i = 0; i < COMPONENTS; i++) {
    const c = id('cmp');
    const o = id('op');
    ins.comp.run(c, loomId, i, `page:p${n}-${i}`, i, 'agent:bench');
    ins.op.run(o, loomId, c, 'bench/agent:bench', `raw-${n}`);
    cids.push(c);
    oids.push(o);
  }
  ins.receipt.run(
    'bench/agent:bench',
    `raw-${n}`,
    'h',
    loomId,
    JSON.stringify(cids),
    JSON.stringify(oids),
    '[]',
    now,
  );
});

await composeThroughput({
  name: 'host-compose-throughput',
  store,
  rawCompose,
  batch: BATCH,
  components: COMPONENTS,
  rounds: ROUNDS,
  subjectLabel: `store.compose (${COMPONENTS} components, receipt, idempotency, version guard)`,
  anchorLabel: 'raw better-sqlite3 inserts of the same rows, one transaction each',
});
await store.close();
raw.close();
rmSync(dir, { recursive: true, force: true });
