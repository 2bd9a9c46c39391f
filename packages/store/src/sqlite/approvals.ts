// Approvals in SQLite: request, decide, take (single use), read. Every method one transaction.
import type Database from 'better-sqlite3';
import type { ChainSetup } from '../chained';
import { decisionEvent } from '../decision-audit';
import { StoreError, StoreErrorCode } from '../errors';
import { newId } from '../ids';
import type {
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStatus,
  AuditEventInput,
  DecisionAssertion,
  DecisionVia,
  Store,
} from '../types';
import { type ApprovalRow, approvalView } from '../view';
import { auditInserter } from './audit';
import type { Sync } from './sync';

type ApprovalPart = Sync<
  Pick<Store, 'takeApproval' | 'requestApproval' | 'getApproval' | 'listApprovals' | 'decideApproval'>
>;

function statements(db: Database.Database) {
  return {
    byKey: db.prepare<[string], ApprovalRow>(
      'SELECT * FROM approvals WHERE key = ? ORDER BY created_at DESC, rowid DESC',
    ),
    byId: db.prepare<[string], ApprovalRow>('SELECT * FROM approvals WHERE id = ?'),
    all: db.prepare<[], ApprovalRow>('SELECT * FROM approvals ORDER BY created_at DESC, rowid DESC'),
    // The rows of one status, and the live ones that may just have expired into it.
    byStatus: db.prepare<[string, string], ApprovalRow>(
      "SELECT * FROM approvals WHERE status = ? OR (status IN ('pending', 'approved', 'denied') AND expires_at <= ?) ORDER BY created_at DESC, rowid DESC",
    ),
    insert: db.prepare(
      'INSERT INTO approvals (id, key, command, agent, run, action, reason, arg_names, args, argv, tier, display, preview, plan_hash, plan, session, status, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    consume: db.prepare(
      "UPDATE approvals SET status = 'consumed', consumed_at = ? WHERE id = ? AND status = 'approved'",
    ),
    set: db.prepare(
      'UPDATE approvals SET status = ?, decided_at = COALESCE(?, decided_at), decided_by = COALESCE(?, decided_by), consumed_at = COALESCE(?, consumed_at), expires_at = ? WHERE id = ?',
    ),
    via: db.prepare('UPDATE approvals SET decided_via = ? WHERE id = ?'),
    assertion: db.prepare('UPDATE approvals SET assertion = ? WHERE id = ?'),
  };
}

type Statements = ReturnType<typeof statements>;

/** The row as it is now: a live one whose time is up is marked expired first. */
function expireIfDue(st: Statements, row: ApprovalRow, now: Date): ApprovalRow {
  if (
    (row.status === 'pending' || row.status === 'approved' || row.status === 'denied') &&
    row.expires_at <= now.toISOString()
  ) {
    st.set.run('expired', null, null, null, row.expires_at, row.id);
    return { ...row, status: 'expired' };
  }
  return row;
}

/** Consumes the live approved approval of `key`, if there is one. */
function take(st: Statements, key: string, now: Date): ApprovalRecord | undefined {
  const rows = st.byKey.all(key).map((r) => expireIfDue(st, r, now));
  const approved = rows.find((r) => r.status === 'approved');
  if (!approved) return undefined;
  // The status guard makes a second taker (another broker on this instance) find nothing.
  const taken = st.consume.run(now.toISOString(), approved.id);
  if (taken.changes !== 1) return undefined;
  return approvalView({ ...approved, status: 'consumed', consumed_at: now.toISOString() });
}

/** The live denied or pending approval of the request's key, else a new pending one. */
function request(st: Statements, input: ApprovalRequest): ApprovalRecord {
  const now = input.now ?? new Date();
  const rows = st.byKey.all(input.key).map((r) => expireIfDue(st, r, now));
  const live = rows.find((r) => r.status === 'denied') ?? rows.find((r) => r.status === 'pending');
  if (live) return approvalView(live);
  const row: ApprovalRow = {
    id: newId('apr'),
    key: input.key,
    command: input.command,
    agent: input.agent,
    run: input.run,
    action: input.action,
    reason: input.reason,
    arg_names: JSON.stringify(input.argNames),
    args: JSON.stringify(input.args),
    argv: input.argv === null ? null : JSON.stringify(input.argv),
    tier: input.tier,
    display: input.display ?? null,
    preview: input.preview === undefined ? null : JSON.stringify(input.preview),
    plan_hash: input.planHash ?? null,
    plan: input.plan === undefined ? null : JSON.stringify(input.plan),
    session: input.session ?? null,
    decided_via: null,
    assertion: null,
    status: 'pending',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + input.ttlMs).toISOString(),
    decided_at: null,
    decided_by: null,
    consumed_at: null,
  };
  st.insert.run(
    row.id,
    row.key,
    row.command,
    row.agent,
    row.run,
    row.action,
    row.reason,
    row.arg_names,
    row.args,
    row.argv,
    row.tier,
    row.display,
    row.preview,
    row.plan_hash,
    row.plan,
    row.session,
    row.status,
    row.created_at,
    row.expires_at,
  );
  return approvalView(row);
}

/**
 * Approves or denies a pending approval, and records the decision in the audit log, in the caller's
 * transaction; anything else is `approval_not_found`.
 */
function decide(
  st: Statements,
  insertAudit: (event: AuditEventInput) => number,
  id: string,
  decision: 'approved' | 'denied',
  by: string,
  ttlMs: number,
  now: Date,
  via: DecisionVia | undefined,
  assertion: DecisionAssertion | undefined,
): ApprovalRecord {
  const found = st.byId.get(id);
  const row = found ? expireIfDue(st, found, now) : undefined;
  if (row?.status !== 'pending') {
    throw new StoreError(
      StoreErrorCode.approval_not_found,
      row
        ? `approval ${id} is ${row.status}, not pending; only a pending approval can be decided (see \`loom approvals list\`)`
        : `no approval has the id ${id}; see \`loom approvals list\``,
    );
  }
  const expires = new Date(now.getTime() + ttlMs).toISOString();
  st.set.run(decision, now.toISOString(), by, null, expires, id);
  if (via !== undefined) st.via.run(via, id);
  const stored = assertion === undefined ? null : JSON.stringify(assertion);
  if (stored !== null) st.assertion.run(stored, id);
  const decided = approvalView({
    ...row,
    status: decision,
    decided_at: now.toISOString(),
    decided_by: by,
    decided_via: via ?? null,
    assertion: stored,
    expires_at: expires,
  });
  insertAudit(decisionEvent(decided, by));
  return decided;
}

/** The approvals of a status (or all), newest first, each as it is now. */
function list(st: Statements, status: ApprovalStatus | 'all', now: Date): ApprovalRecord[] {
  return (status === 'all' ? st.all.all() : st.byStatus.all(status, now.toISOString()))
    .map((r) => expireIfDue(st, r, now))
    .filter((r) => status === 'all' || r.status === status)
    .map(approvalView);
}

/** The approvals part of the SQLite store. */
export function sqliteApprovals(db: Database.Database, setup: ChainSetup): ApprovalPart {
  const st = statements(db);
  const insertAudit = auditInserter(db, setup);
  const takeTx = db.transaction((key: string, now: Date) => take(st, key, now));
  const requestTx = db.transaction((input: ApprovalRequest) => request(st, input));
  const decideTx = db.transaction(
    (
      id: string,
      decision: 'approved' | 'denied',
      by: string,
      ttlMs: number,
      now: Date,
      via?: DecisionVia,
      assertion?: DecisionAssertion,
    ) => decide(st, insertAudit, id, decision, by, ttlMs, now, via, assertion),
  );
  const getTx = db.transaction((id: string): ApprovalRecord | undefined => {
    const row = st.byId.get(id);
    return row ? approvalView(row) : undefined;
  });

  const listTx = db.transaction((status: ApprovalStatus | 'all', now: Date) => list(st, status, now));

  return {
    takeApproval: (key, now = new Date()) => takeTx.immediate(key, now),
    requestApproval: (input) => requestTx.immediate(input),
    getApproval: (id) => getTx(id),
    listApprovals: (filter = {}) => listTx.immediate(filter.status ?? 'pending', filter.now ?? new Date()),
    decideApproval: (id, decision, by, ttlMs, now = new Date(), via = undefined, assertion = undefined) =>
      decideTx.immediate(id, decision, by, ttlMs, now, via, assertion),
  };
}
