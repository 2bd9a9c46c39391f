// The audit log in SQLite: append one event, read the tail.
import type Database from 'better-sqlite3';
import {
  AUDIT_PAGE_MAX,
  type AuditEvent,
  type AuditEventInput,
  type AuditPage,
  type AuditQuery,
  type PruneResult,
} from '../types';

type AuditRow = Omit<AuditEvent, 'payload'> & { payload: string };

const toEvent = (r: AuditRow): AuditEvent => ({
  ...r,
  payload: JSON.parse(r.payload) as Record<string, unknown>,
});

/** The WHERE clause and parameters of a query's filters (cursors apart). */
function filters(q: AuditQuery): { where: string[]; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (sql: string, value: string | number | undefined): void => {
    if (value === undefined) return;
    where.push(sql);
    params.push(value);
  };
  add('actor = ?', q.actor);
  add('command = ?', q.command);
  add('outcome = ?', q.outcome);
  add('at >= ?', q.since);
  add('at < ?', q.until);
  return { where, params };
}

/**
 * One page of a filtered audit query. The page is read in the direction of its cursor with one
 * row more than asked, which says whether a further page exists that way; the other way is one
 * indexed EXISTS. Statements are built from a fixed set of clauses (values are always bound).
 */
function queryPage(db: Database.Database, q: AuditQuery): AuditPage {
  const limit = Math.min(Math.max(1, Math.trunc(q.limit ?? 100)), AUDIT_PAGE_MAX);
  const { where, params } = filters(q);
  const forward = q.after !== undefined;
  const bounds = [...where];
  const bound = [...params];
  if (q.after !== undefined) {
    bounds.push('seq > ?');
    bound.push(q.after);
  }
  if (q.before !== undefined) {
    bounds.push('seq < ?');
    bound.push(q.before);
  }
  const clause = (w: string[]) => (w.length === 0 ? '' : `WHERE ${w.join(' AND ')}`);
  const rows = db
    .prepare<(string | number)[], AuditRow>(
      `SELECT * FROM audit ${clause(bounds)} ORDER BY seq ${forward ? 'ASC' : 'DESC'} LIMIT ?`,
    )
    .all(...bound, limit + 1);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (!forward) page.reverse();
  const first = page[0]?.seq;
  const last = page.at(-1)?.seq;
  const exists = (cmp: '<' | '>', seq: number): boolean =>
    db
      .prepare<(string | number)[], { x: number }>(
        `SELECT 1 AS x FROM audit ${clause([...where, `seq ${cmp} ?`])} LIMIT 1`,
      )
      .get(...params, seq) !== undefined;
  let older: number | null;
  let newer: number | null;
  if (forward) {
    newer = more ? (last ?? null) : null;
    older = first !== undefined && exists('<', first) ? first : null;
  } else {
    older = more ? (first ?? null) : null;
    newer = last !== undefined && exists('>', last) ? last : null;
  }
  return { events: page.map(toEvent), older, newer };
}

/** The audit part of the SQLite store. */
/**
 * The statement that appends one audit event, without a transaction of its own: the caller runs it
 * inside one (`appendAudit`'s, or a compose's, so the compose and its audit row commit together).
 */
export function auditInserter(db: Database.Database): (event: AuditEventInput) => number {
  const insert = db.prepare(
    'INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return (event) =>
    Number(
      insert.run(
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
    );
}

export function sqliteAudit(db: Database.Database): {
  appendAudit(event: AuditEventInput): number;
  tailAudit(limit: number): AuditEvent[];
  queryAudit(query: AuditQuery): AuditPage;
  prune(before: Date): PruneResult;
} {
  const insert = auditInserter(db);
  const tail = db.prepare<[number], AuditRow>(
    'SELECT * FROM (SELECT * FROM audit ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC',
  );
  const appendTx = db.transaction((event: AuditEventInput): number => insert(event));
  const tailTx = db.transaction((limit: number): AuditEvent[] => tail.all(limit).map(toEvent));
  const queryTx = db.transaction((query: AuditQuery): AuditPage => queryPage(db, query));
  const pruneAudit = db.prepare<[string]>('DELETE FROM audit WHERE at < ?');
  // A spent approval's last change: its use, else its decision, else its expiry.
  const pruneApprovals = db.prepare<[string, string]>(
    "DELETE FROM approvals WHERE status IN ('consumed', 'denied', 'expired') AND COALESCE(consumed_at, decided_at, expires_at) < ? AND expires_at < ?",
  );
  const pruneTx = db.transaction((before: string): PruneResult => {
    const audit = pruneAudit.run(before).changes;
    const approvals = pruneApprovals.run(before, before).changes;
    return { audit, approvals };
  });
  return {
    appendAudit: (event) => appendTx.immediate(event),
    tailAudit: (limit) => tailTx(limit),
    queryAudit: (query) => queryTx(query),
    prune: (before) => {
      const removed = pruneTx.immediate(before.toISOString());
      // Hand the freed pages back and cut the write-ahead log down to nothing.
      db.pragma('wal_checkpoint(TRUNCATE)');
      return removed;
    },
  };
}
