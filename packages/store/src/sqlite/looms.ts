// Looms in SQLite: compose (components, operations, receipt and audit event in one transaction),
// inspect, receipts. The compose algorithm is ../compose.ts; this file holds its statements.
import type Database from 'better-sqlite3';
import type { ChainSetup } from '../chained';
import { type ComposeDialect, composeSync, type Layout } from '../compose';
import { StoreError, StoreErrorCode } from '../errors';
import type { AuditEventInput, ComposeInput, ComposeOutcome, LoomSummary, Store } from '../types';
import {
  type ComponentRow,
  type LoomRow,
  loomView,
  receiptView,
  type ReceiptRow as StoredReceipt,
} from '../view';
import { auditInserter } from './audit';
import type { Sync } from './sync';

interface ReceiptRow extends StoredReceipt {
  namespace: string;
  args_hash: string;
}

function statements(db: Database.Database) {
  return {
    receiptByKey: db.prepare<[string, string], ReceiptRow>(
      'SELECT * FROM receipts WHERE namespace = ? AND request_id = ?',
    ),
    loom: db.prepare<[string], LoomRow>(
      'SELECT id, version, focus, created_at, updated_at FROM looms WHERE id = ?',
    ),
    insertLoom: db.prepare(
      'INSERT INTO looms (id, version, focus, created_at, updated_at, created_by, run) VALUES (?, ?, NULL, ?, ?, ?, ?)',
    ),
    bumpLoom: db.prepare('UPDATE looms SET version = ?, updated_at = ? WHERE id = ? AND version = ?'),
    setFocus: db.prepare('UPDATE looms SET focus = ? WHERE id = ?'),
    maxPos: db.prepare<[string], { p: number | null; s: number | null }>(
      'SELECT MAX(position) AS p, MAX(placed_seq) AS s FROM components WHERE loom_id = ?',
    ),
    onStage: db.prepare<[string, string], { id: string }>(
      'SELECT id FROM components WHERE loom_id = ? AND stage = ? ORDER BY placed_seq ASC',
    ),
    insertComponent: db.prepare(
      'INSERT INTO components (id, loom_id, position, ref, title, stage, placed_seq, added_version, added_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    displace: db.prepare('UPDATE components SET stage = NULL WHERE id = ?'),
    insertOp: db.prepare(
      'INSERT INTO operations (id, loom_id, version, kind, component_id, namespace, request_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    insertReceipt: db.prepare(
      'INSERT INTO receipts (namespace, request_id, args_hash, loom_id, version, created, component_ids, operation_ids, displaced, committed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    components: db.prepare<[string], ComponentRow>(
      'SELECT id, ref, title, stage, position, added_version FROM components WHERE loom_id = ? ORDER BY position',
    ),
    receipts: db.prepare<[string, number], ReceiptRow>(
      'SELECT * FROM receipts WHERE namespace = ? ORDER BY seq DESC LIMIT ?',
    ),
    loomReceipts: db.prepare<[string, number], ReceiptRow>(
      'SELECT * FROM receipts WHERE loom_id = ? ORDER BY seq DESC LIMIT ?',
    ),
    listLooms: db.prepare<[number], LoomSummary>(
      'SELECT l.id AS loom_id, l.version, l.created_at, l.updated_at, (SELECT COUNT(*) FROM components c WHERE c.loom_id = l.id) AS components FROM looms l ORDER BY l.updated_at DESC, l.id LIMIT ?',
    ),
  };
}

type Statements = ReturnType<typeof statements>;

/** The compose statements of SQLite, run inside the compose's `BEGIN IMMEDIATE` transaction. */
function composeDialect(
  st: Statements,
  insertAudit: (event: AuditEventInput) => number,
): ComposeDialect<false> {
  return {
    prior: (namespace, requestId) => {
      const row = st.receiptByKey.get(namespace, requestId);
      if (!row) return undefined;
      return { ...row, current: st.loom.get(row.loom_id)?.version ?? row.version, ownCommit: false };
    },
    bump: (loomId, expected, now) => {
      const loom = st.loom.get(loomId);
      if (!loom || (expected !== undefined && expected !== loom.version)) return undefined;
      const bumped = st.bumpLoom.run(loom.version + 1, now, loom.id, loom.version);
      if (bumped.changes !== 1)
        throw new StoreError(StoreErrorCode.store, 'the loom changed during its own commit');
      return loom.version + 1;
    },
    version: (loomId) => st.loom.get(loomId)?.version,
    layout: (loomId, stages): Layout => {
      const max = st.maxPos.get(loomId);
      const occupants = new Map(stages.map((s) => [s, st.onStage.all(loomId, s).map((r) => r.id)]));
      return { start: { position: (max?.p ?? -1) + 1, seq: (max?.s ?? -1) + 1 }, occupants };
    },
    write: (input, p, now) => {
      if (p.created) st.insertLoom.run(p.loomId, p.version, now, now, input.actor, input.run);
      for (const id of p.shelved) st.displace.run(id);
      for (const c of p.components) {
        st.insertComponent.run(
          c.id,
          p.loomId,
          c.position,
          c.ref,
          c.title,
          c.stage,
          c.seq,
          p.version,
          input.actor,
        );
      }
      for (const o of p.operations) {
        st.insertOp.run(o.id, p.loomId, p.version, o.kind, o.componentId, input.namespace, input.requestId);
      }
      if (p.focus !== null) st.setFocus.run(p.focus, p.loomId);
      st.insertReceipt.run(
        input.namespace,
        input.requestId,
        input.argsHash,
        p.loomId,
        p.version,
        p.created ? 1 : 0,
        JSON.stringify(p.components.map((c) => c.id)),
        JSON.stringify(p.operations.map((o) => o.id)),
        JSON.stringify(p.displaced),
        now,
      );
    },
    audit: insertAudit,
  };
}

/** The looms part of the SQLite store. */
export function sqliteLooms(
  db: Database.Database,
  setup: ChainSetup,
): Sync<Pick<Store, 'compose' | 'inspect' | 'receipts' | 'listLooms' | 'loomReceipts'>> {
  const st = statements(db);
  const dialect = composeDialect(st, auditInserter(db, setup));
  // The compose and its audit event commit together, or neither does.
  const composeTx = db.transaction((input: ComposeInput): ComposeOutcome => composeSync(dialect, input));
  // Reads run in a (deferred) transaction too: the loom row and its components come from one snapshot.
  const inspectTx = db.transaction((loomId: string) => {
    const loom = st.loom.get(loomId);
    return loom ? loomView(loom, st.components.all(loomId)) : undefined;
  });
  const receiptsTx = db.transaction((namespace: string, limit: number) =>
    st.receipts.all(namespace, limit).map(receiptView),
  );

  return {
    compose: (input) => composeTx.immediate(input),
    inspect: (loomId) => inspectTx(loomId),
    receipts: (namespace, limit) => receiptsTx(namespace, limit),
    listLooms: (limit) => st.listLooms.all(limit),
    loomReceipts: (loomId, limit) => st.loomReceipts.all(loomId, limit).map(receiptView),
  };
}
