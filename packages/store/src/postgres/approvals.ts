// Approvals in PostgreSQL: request, decide, take (single use across hosts), read. Every method one
// transaction. The single use is a conditional UPDATE of a row locked FOR UPDATE: of two hosts
// taking one approval at once, the second waits for the first, then finds the row no longer
// `approved` and takes nothing.

import type { ChainSetup } from '../chained';
import { decisionEvent } from '../decision-audit';
import { StoreError, StoreErrorCode } from '../errors';
import { newId } from '../ids';
import type {
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStatus,
  DecisionAssertion,
  DecisionVia,
  Store,
} from '../types';
import { type ApprovalRow, approvalView } from '../view';
import { insertAudit } from './audit';
import { lockKey, type PgDb, type Tx } from './client';

const COLUMNS =
  'id, key, command, agent, run, action, reason, arg_names, args, argv, tier, display, preview, plan_hash, plan, session, decided_via, assertion, status, created_at, expires_at, decided_at, decided_by, consumed_at';
// Newest first; `ordinal` orders two requests of the same millisecond as they were made.
const NEWEST = 'ORDER BY created_at DESC, ordinal DESC';
const LIVE = "status IN ('pending', 'approved', 'denied')";

/** Marks the live approvals of `key` (every key when undefined) whose time is up as expired. */
async function expireDue(tx: Tx, now: Date, key?: string): Promise<void> {
  if (key === undefined) {
    await tx.query(`UPDATE approvals SET status = 'expired' WHERE ${LIVE} AND expires_at <= $1`, [
      now.toISOString(),
    ]);
  } else {
    await tx.query(
      `UPDATE approvals SET status = 'expired' WHERE key = $1 AND ${LIVE} AND expires_at <= $2`,
      [key, now.toISOString()],
    );
  }
}

type ApprovalPart = Pick<
  Store,
  'takeApproval' | 'requestApproval' | 'getApproval' | 'listApprovals' | 'decideApproval'
>;

/** Takes the newest approved approval of `key`, once: it is consumed in the same statement. */
async function take(tx: Tx, key: string, now: Date): Promise<ApprovalRecord | undefined> {
  await expireDue(tx, now, key);
  const [row] = await tx.query<ApprovalRow>(
    `UPDATE approvals SET status = 'consumed', consumed_at = $2
     WHERE id = (SELECT id FROM approvals WHERE key = $1 AND status = 'approved' ${NEWEST} LIMIT 1 FOR UPDATE)
       AND status = 'approved'
     RETURNING ${COLUMNS}`,
    [key, now.toISOString()],
  );
  return row === undefined ? undefined : approvalView(row);
}

/** The live approval of the request's key (denied first, then pending), or a new pending one. */
async function request(tx: Tx, input: ApprovalRequest): Promise<ApprovalRecord> {
  const now = input.now ?? new Date();
  await expireDue(tx, now, input.key);
  const rows = await tx.query<ApprovalRow>(
    `SELECT ${COLUMNS} FROM approvals WHERE key = $1 AND status IN ('denied', 'pending') ${NEWEST}`,
    [input.key],
  );
  const live = rows.find((r) => r.status === 'denied') ?? rows.find((r) => r.status === 'pending');
  if (live) return approvalView(live);
  const [row] = await tx.query<ApprovalRow>(
    `INSERT INTO approvals (id, key, command, agent, run, action, reason, arg_names, args, argv, tier, display, preview, plan_hash, plan, session, status, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 'pending', $17, $18) RETURNING ${COLUMNS}`,
    [
      newId('apr'),
      input.key,
      input.command,
      input.agent,
      input.run,
      input.action,
      input.reason,
      JSON.stringify(input.argNames),
      JSON.stringify(input.args),
      input.argv === null ? null : JSON.stringify(input.argv),
      input.tier,
      input.display ?? null,
      input.preview === undefined ? null : JSON.stringify(input.preview),
      input.planHash ?? null,
      input.plan === undefined ? null : JSON.stringify(input.plan),
      input.session ?? null,
      now.toISOString(),
      new Date(now.getTime() + input.ttlMs).toISOString(),
    ],
  );
  return approvalView(row as ApprovalRow);
}

/** Decides a pending approval with time left, and appends its audit event in the same transaction. */
async function decide(
  tx: Tx,
  setup: ChainSetup,
  id: string,
  decision: 'approved' | 'denied',
  by: string,
  ttlMs: number,
  now: Date,
  via: DecisionVia | undefined,
  assertion: DecisionAssertion | undefined,
): Promise<ApprovalRecord> {
  const [found] = await tx.query<ApprovalRow>(`SELECT ${COLUMNS} FROM approvals WHERE id = $1 FOR UPDATE`, [
    id,
  ]);
  const due = found !== undefined && ['pending', 'approved', 'denied'].includes(found.status);
  const status = due && found.expires_at <= now.toISOString() ? 'expired' : found?.status;
  if (status !== 'pending') {
    throw new StoreError(
      StoreErrorCode.approval_not_found,
      found
        ? `approval ${id} is ${status}, not pending; only a pending approval can be decided (see \`loom approvals list\`)`
        : `no approval has the id ${id}; see \`loom approvals list\``,
    );
  }
  const [row] = await tx.query<ApprovalRow>(
    `UPDATE approvals SET status = $2, decided_at = $3, decided_by = $4, expires_at = $5, decided_via = $6, assertion = $7 WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      decision,
      now.toISOString(),
      by,
      new Date(now.getTime() + ttlMs).toISOString(),
      via ?? null,
      assertion === undefined ? null : JSON.stringify(assertion),
    ],
  );
  const decided = approvalView(row as ApprovalRow);
  // Last before COMMIT (insertAudit): the decision and its audit row commit together.
  await insertAudit(tx, decisionEvent(decided, by), setup);
  return decided;
}

/** The approvals of a status (every one for `all`), newest first, after marking those due as expired. */
async function list(tx: Tx, status: ApprovalStatus | 'all', now: Date): Promise<ApprovalRecord[]> {
  await expireDue(tx, now);
  const rows = await tx.query<ApprovalRow>(
    `SELECT ${COLUMNS} FROM approvals WHERE $1 = 'all' OR status = $1 ${NEWEST}`,
    [status],
  );
  return rows.map(approvalView);
}

/** The approvals part of the PostgreSQL store. */
export function pgApprovals(db: PgDb, setup: ChainSetup): ApprovalPart {
  return {
    takeApproval: (key, now = new Date()) =>
      db.tx('take an approval', (tx) => take(tx, key, now), {
        idempotent: false,
        unknownHint:
          'the approval may have been used up without the call running; if the call is refused again, approve the new request',
      }),
    // Find-or-create on the key, under a lock of that key: running it again returns what the first
    // run recorded.
    requestApproval: (input) =>
      db.tx('request an approval', (tx) => request(tx, input), {
        idempotent: true,
        lock: lockKey(`approval:${input.key}`),
      }),
    getApproval: (id) =>
      db.tx(
        'read an approval',
        async (tx) => {
          const [row] = await tx.query<ApprovalRow>(`SELECT ${COLUMNS} FROM approvals WHERE id = $1`, [id]);
          return row === undefined ? undefined : approvalView(row);
        },
        { idempotent: true, readOnly: true },
      ),
    listApprovals: (filter = {}) =>
      db.tx('list approvals', (tx) => list(tx, filter.status ?? 'pending', filter.now ?? new Date()), {
        idempotent: true,
      }),
    decideApproval: (id, decision, by, ttlMs, now = new Date(), via = undefined, assertion = undefined) =>
      db.tx('decide an approval', (tx) => decide(tx, setup, id, decision, by, ttlMs, now, via, assertion), {
        idempotent: false,
        unknownHint: `see whether it was decided with \`loom approvals list --all\``,
      }),
  };
}
