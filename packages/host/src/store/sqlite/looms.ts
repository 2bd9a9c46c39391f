// Looms in SQLite: compose (components, operations, receipt and audit event in one transaction),
// inspect, receipts.
import type Database from 'better-sqlite3';
import { HostError, HostErrorCode } from '../../errors';
import { newId } from '../ids';
import {
  type ComposeInput,
  type ComposeOutcome,
  type LoomSummary,
  type Receipt,
  STAGE_CAPACITY,
  type Store,
} from '../types';
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

/** The looms part of the SQLite store. */
export function sqliteLooms(
  db: Database.Database,
): Sync<Pick<Store, 'compose' | 'inspect' | 'receipts' | 'listLooms' | 'loomReceipts'>> {
  const st = statements(db);

  /** Finds the loom a compose extends (or creates one) and claims its next version. */
  const target = (
    input: ComposeInput,
    now: string,
  ): { loomId: string; version: number; created: boolean } | ComposeOutcome => {
    if (input.loomId === undefined) {
      const loomId = newId('loom');
      st.insertLoom.run(loomId, 1, now, now, input.actor, input.run);
      return { loomId, version: 1, created: true };
    }
    const loom = st.loom.get(input.loomId);
    if (!loom) return { kind: 'not_found', loomId: input.loomId };
    if (input.expectedVersion !== undefined && input.expectedVersion !== loom.version) {
      return {
        kind: 'version_conflict',
        loomId: loom.id,
        expectedVersion: input.expectedVersion,
        currentVersion: loom.version,
      };
    }
    const bumped = st.bumpLoom.run(loom.version + 1, now, loom.id, loom.version);
    if (bumped.changes !== 1)
      throw new HostError(HostErrorCode.store, 'the loom changed during its own commit');
    return { loomId: loom.id, version: loom.version + 1, created: false };
  };

  const insertAudit = auditInserter(db);

  /** The writes of one compose; runs inside {@link composeTx}. */
  const composeWrites = (input: ComposeInput): ComposeOutcome => {
    const prior = st.receiptByKey.get(input.namespace, input.requestId);
    if (prior) {
      if (prior.args_hash !== input.argsHash) {
        return {
          kind: 'request_conflict',
          requestId: input.requestId,
          loomId: prior.loom_id,
          version: prior.version,
        };
      }
      const current = st.loom.get(prior.loom_id);
      return {
        kind: 'replayed',
        receipt: receiptView(prior),
        currentVersion: current?.version ?? prior.version,
      };
    }
    const now = new Date().toISOString();
    const claimed = target(input, now);
    if ('kind' in claimed) return claimed;
    const { loomId, version, created } = claimed;
    const max = st.maxPos.get(loomId);
    let position = (max?.p ?? -1) + 1;
    let seq = (max?.s ?? -1) + 1;
    const componentIds: string[] = [];
    const operationIds: string[] = [];
    const displaced: string[] = [];
    const op = (kind: string, componentId: string | null): void => {
      const id = newId('op');
      st.insertOp.run(id, loomId, version, kind, componentId, input.namespace, input.requestId);
      operationIds.push(id);
    };
    for (const component of input.components) {
      const id = newId('cmp');
      if (component.stage !== undefined) {
        // A full stage gives up its longest-placed component to the shelf (docs/host.md).
        const occupants = st.onStage.all(loomId, component.stage);
        for (let i = 0; i <= occupants.length - STAGE_CAPACITY; i++) {
          const out = occupants[i]!.id;
          st.displace.run(out);
          displaced.push(out);
          op('displace', out);
        }
      }
      st.insertComponent.run(
        id,
        loomId,
        position++,
        component.ref,
        component.title ?? null,
        component.stage ?? null,
        seq++,
        version,
        input.actor,
      );
      componentIds.push(id);
      op('add', id);
      if (component.focus === true) {
        st.setFocus.run(id, loomId);
        op('focus', id);
      }
    }
    const receipt: Receipt = {
      loom_id: loomId,
      request_id: input.requestId,
      version,
      created,
      component_ids: componentIds,
      operation_ids: operationIds,
      displaced,
      committed_at: now,
    };
    st.insertReceipt.run(
      input.namespace,
      input.requestId,
      input.argsHash,
      loomId,
      version,
      created ? 1 : 0,
      JSON.stringify(componentIds),
      JSON.stringify(operationIds),
      JSON.stringify(displaced),
      now,
    );
    return { kind: 'committed', receipt, currentVersion: version, displaced };
  };

  // The compose and its audit event commit together, or neither does.
  const composeTx = db.transaction((input: ComposeInput): ComposeOutcome => {
    const outcome = composeWrites(input);
    if (input.audit !== undefined) insertAudit(input.audit(outcome));
    return outcome;
  });

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
