import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { HOST_ERROR_CODES, HostError } from '../errors';
import type {
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStatus,
  AuditEvent,
  AuditEventInput,
  ComponentView,
  ComposeInput,
  ComposeOutcome,
  LoomView,
  Receipt,
  Store,
} from './types';

/** How many components a stage holds at once (docs/host.md, "The stage model"). */
export const STAGE_CAPACITY = 8;

const SCHEMA = `
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

const newId = (prefix: string): string => `${prefix}-${randomBytes(8).toString('hex')}`;

interface ReceiptRow {
  namespace: string;
  request_id: string;
  args_hash: string;
  loom_id: string;
  version: number;
  created: number;
  component_ids: string;
  operation_ids: string;
  displaced: string;
  committed_at: string;
}

const toReceipt = (row: ReceiptRow): Receipt => ({
  loom_id: row.loom_id,
  request_id: row.request_id,
  version: row.version,
  created: row.created === 1,
  component_ids: JSON.parse(row.component_ids) as string[],
  operation_ids: JSON.parse(row.operation_ids) as string[],
  displaced: JSON.parse(row.displaced) as string[],
  committed_at: row.committed_at,
});

interface ApprovalRow extends Omit<ApprovalRecord, 'arg_names'> {
  arg_names: string;
}

const toApproval = (row: ApprovalRow): ApprovalRecord => ({
  ...row,
  arg_names: JSON.parse(row.arg_names) as string[],
});

/** The kind a stored reference reads as; a legacy `piece:` reference reads as `pattern` (LA-67). */
export function refKind(ref: string): string {
  const kind = ref.slice(0, Math.max(0, ref.indexOf(':')));
  return kind === 'piece' ? 'pattern' : kind;
}

/**
 * Opens (creating when absent) the SQLite store at `file`: WAL mode, a busy timeout so that several
 * brokers on one instance wait for each other, and every write in one `BEGIN IMMEDIATE` transaction.
 */
export function openSqliteStore(file: string, options: { readonly?: boolean } = {}): Store {
  let db: Database.Database;
  try {
    db = new Database(file, {
      readonly: options.readonly ?? false,
      fileMustExist: options.readonly ?? false,
    });
    db.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec(SCHEMA);
      db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '1')").run();
    }
  } catch (cause) {
    throw new HostError(
      HOST_ERROR_CODES.store,
      `could not open the store at ${file}: ${(cause as Error).message}. Check the instance directory exists and is writable (create one with \`loom init\`).`,
      { cause },
    );
  }
  db.pragma('foreign_keys = ON');

  const st = {
    receiptByKey: db.prepare<[string, string], ReceiptRow>(
      'SELECT * FROM receipts WHERE namespace = ? AND request_id = ?',
    ),
    loom: db.prepare<
      [string],
      { id: string; version: number; focus: string | null; created_at: string; updated_at: string }
    >('SELECT id, version, focus, created_at, updated_at FROM looms WHERE id = ?'),
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
    components: db.prepare<
      [string],
      {
        id: string;
        ref: string;
        title: string | null;
        stage: string | null;
        position: number;
        added_version: number;
      }
    >(
      'SELECT id, ref, title, stage, position, added_version FROM components WHERE loom_id = ? ORDER BY position',
    ),
    receipts: db.prepare<[string, number], ReceiptRow>(
      'SELECT * FROM receipts WHERE namespace = ? ORDER BY seq DESC LIMIT ?',
    ),
    insertAudit: db.prepare(
      'INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    tailAudit: db.prepare<[number], Omit<AuditEvent, 'payload'> & { payload: string }>(
      'SELECT * FROM (SELECT * FROM audit ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC',
    ),
    approvalsByKey: db.prepare<[string], ApprovalRow>(
      'SELECT * FROM approvals WHERE key = ? ORDER BY created_at DESC, rowid DESC',
    ),
    approvalById: db.prepare<[string], ApprovalRow>('SELECT * FROM approvals WHERE id = ?'),
    allApprovals: db.prepare<[], ApprovalRow>('SELECT * FROM approvals ORDER BY created_at DESC, rowid DESC'),
    insertApproval: db.prepare(
      'INSERT INTO approvals (id, key, command, agent, run, action, reason, arg_names, status, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    consume: db.prepare(
      "UPDATE approvals SET status = 'consumed', consumed_at = ? WHERE id = ? AND status = 'approved'",
    ),
    setApproval: db.prepare(
      'UPDATE approvals SET status = ?, decided_at = COALESCE(?, decided_at), decided_by = COALESCE(?, decided_by), consumed_at = COALESCE(?, consumed_at), expires_at = ? WHERE id = ?',
    ),
  };

  const composeTx = db.transaction((input: ComposeInput): ComposeOutcome => {
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
        receipt: toReceipt(prior),
        currentVersion: current?.version ?? prior.version,
      };
    }
    const now = new Date().toISOString();
    let loomId: string;
    let version: number;
    let created: boolean;
    if (input.loomId === undefined) {
      loomId = newId('loom');
      version = 1;
      created = true;
      st.insertLoom.run(loomId, version, now, now, input.actor, input.run);
    } else {
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
      loomId = loom.id;
      version = loom.version + 1;
      created = false;
      const bumped = st.bumpLoom.run(version, now, loomId, loom.version);
      if (bumped.changes !== 1)
        throw new HostError(HOST_ERROR_CODES.store, 'the loom changed during its own commit');
    }
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
  });

  const expireIfDue = (row: ApprovalRow, now: Date): ApprovalRow => {
    if (
      (row.status === 'pending' || row.status === 'approved' || row.status === 'denied') &&
      row.expires_at <= now.toISOString()
    ) {
      st.setApproval.run('expired', null, null, null, row.expires_at, row.id);
      return { ...row, status: 'expired' };
    }
    return row;
  };

  const takeTx = db.transaction((key: string, now: Date): ApprovalRecord | undefined => {
    const rows = st.approvalsByKey.all(key).map((r) => expireIfDue(r, now));
    const approved = rows.find((r) => r.status === 'approved');
    if (!approved) return undefined;
    // The status guard makes a second taker (another broker on this instance) find nothing.
    const taken = st.consume.run(now.toISOString(), approved.id);
    if (taken.changes !== 1) return undefined;
    return toApproval({ ...approved, status: 'consumed', consumed_at: now.toISOString() });
  });

  const requestTx = db.transaction((input: ApprovalRequest): ApprovalRecord => {
    const now = input.now ?? new Date();
    const rows = st.approvalsByKey.all(input.key).map((r) => expireIfDue(r, now));
    const live = rows.find((r) => r.status === 'denied') ?? rows.find((r) => r.status === 'pending');
    if (live) return toApproval(live);
    const row: ApprovalRow = {
      id: newId('apr'),
      key: input.key,
      command: input.command,
      agent: input.agent,
      run: input.run,
      action: input.action,
      reason: input.reason,
      arg_names: JSON.stringify(input.argNames),
      status: 'pending',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + input.ttlMs).toISOString(),
      decided_at: null,
      decided_by: null,
      consumed_at: null,
    };
    st.insertApproval.run(
      row.id,
      row.key,
      row.command,
      row.agent,
      row.run,
      row.action,
      row.reason,
      row.arg_names,
      row.status,
      row.created_at,
      row.expires_at,
    );
    return toApproval(row);
  });

  const decideTx = db.transaction(
    (id: string, decision: 'approved' | 'denied', by: string, ttlMs: number, now: Date): ApprovalRecord => {
      const found = st.approvalById.get(id);
      const row = found ? expireIfDue(found, now) : undefined;
      if (row?.status !== 'pending') {
        throw new HostError(
          HOST_ERROR_CODES.approvalNotFound,
          row
            ? `approval ${id} is ${row.status}, not pending; only a pending approval can be decided (see \`loom approvals list\`)`
            : `no approval has the id ${id}; see \`loom approvals list\``,
        );
      }
      const expires = new Date(now.getTime() + ttlMs).toISOString();
      st.setApproval.run(decision, now.toISOString(), by, null, expires, id);
      return toApproval({
        ...row,
        status: decision,
        decided_at: now.toISOString(),
        decided_by: by,
        expires_at: expires,
      });
    },
  );

  const guard = <T>(what: string, fn: () => T): T => {
    try {
      return fn();
    } catch (cause) {
      if (cause instanceof HostError) throw cause;
      throw new HostError(
        HOST_ERROR_CODES.store,
        `the store failed to ${what}: ${(cause as Error).message}`,
        { cause },
      );
    }
  };

  return {
    compose: (input) => guard('commit a compose', () => composeTx.immediate(input)),
    inspect(loomId) {
      return guard('read a loom', () => {
        const loom = st.loom.get(loomId);
        if (!loom) return undefined;
        const rows = st.components.all(loomId);
        const components: ComponentView[] = rows.map((r) => ({
          id: r.id,
          kind: refKind(r.ref),
          title: r.title,
          stage: r.stage,
          position: r.position,
          added_version: r.added_version,
        }));
        const stages: Record<string, string[]> = {};
        const shelf: string[] = [];
        for (const c of components) {
          if (c.stage === null) shelf.push(c.id);
          else {
            const list = stages[c.stage] ?? [];
            list.push(c.id);
            stages[c.stage] = list;
          }
        }
        const view: LoomView = {
          loom_id: loom.id,
          version: loom.version,
          created_at: loom.created_at,
          updated_at: loom.updated_at,
          components,
          layout: { stages, shelf, focus: loom.focus },
        };
        return view;
      });
    },
    receipts: (namespace, limit) =>
      guard('read receipts', () => st.receipts.all(namespace, limit).map(toReceipt)),
    appendAudit: (event: AuditEventInput) =>
      guard('append an audit event', () =>
        Number(
          st.insertAudit.run(
            new Date().toISOString(),
            event.run,
            event.actor,
            event.job,
            event.command,
            event.action,
            event.phase,
            event.outcome,
            event.code,
            event.reason,
            JSON.stringify(event.payload),
          ).lastInsertRowid,
        ),
      ),
    tailAudit: (limit) =>
      guard('read the audit log', () =>
        st.tailAudit
          .all(limit)
          .map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> })),
      ),
    takeApproval: (key, now = new Date()) => guard('take an approval', () => takeTx.immediate(key, now)),
    requestApproval: (input) => guard('request an approval', () => requestTx.immediate(input)),
    getApproval: (id) =>
      guard('read an approval', () => {
        const row = st.approvalById.get(id);
        return row ? toApproval(row) : undefined;
      }),
    listApprovals(filter = {}) {
      return guard('list approvals', () => {
        const now = filter.now ?? new Date();
        const rows = db.transaction(() => st.allApprovals.all().map((r) => expireIfDue(r, now))).immediate();
        const status: ApprovalStatus | 'all' = filter.status ?? 'pending';
        return rows.filter((r) => status === 'all' || r.status === status).map(toApproval);
      });
    },
    decideApproval: (id, decision, by, ttlMs, now = new Date()) =>
      guard('decide an approval', () => decideTx.immediate(id, decision, by, ttlMs, now)),
    close: () => db.close(),
  };
}
