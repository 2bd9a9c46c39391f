// The audit log in SQLite: append one event, read the tail, query a filtered page, prune.
import type Database from 'better-sqlite3';
import { auditFilters, auditLimit, cursorRange, timeRange } from '../audit-page';
import { auditText } from '../audit-text';
import type { AuditEvent, AuditEventInput, AuditPage, AuditQuery, PruneResult } from '../types';

type AuditRow = Omit<AuditEvent, 'payload'> & { payload: string };

const toEvent = (r: AuditRow): AuditEvent => ({
  ...r,
  payload: JSON.parse(r.payload) as Record<string, unknown>,
});

type Param = string | number;

/** The audit query of the SQLite store: statements built from a fixed set of clauses, cached. */
function auditQuery(db: Database.Database): (q: AuditQuery) => AuditPage {
  const firstAt = db.prepare<[string], { seq: number }>(
    'SELECT seq FROM audit WHERE at >= ? ORDER BY at, seq LIMIT 1',
  );
  const cache = new Map<string, Database.Statement<Param[], AuditRow>>();
  const statement = (sql: string) => {
    let st = cache.get(sql);
    if (st === undefined) {
      st = db.prepare<Param[], AuditRow>(sql);
      cache.set(sql, st);
    }
    return st;
  };
  return (q) => {
    const limit = auditLimit(q);
    const none: AuditPage = { events: [], older: null, newer: null };
    const time = timeRange((at) => firstAt.get(at)?.seq, q);
    const range = time && cursorRange(time, q);
    if (time === undefined || range === undefined) return none;
    const where: string[] = [];
    const params: Param[] = [];
    for (const [column, value] of auditFilters(q)) {
      where.push(`${column} = ?`);
      params.push(value);
    }
    const filter = where.length === 0 ? '' : `${where.join(' AND ')} AND `;
    const forward = q.after !== undefined;
    const rows = statement(
      `SELECT * FROM audit WHERE ${filter}seq >= ? AND seq < ? ORDER BY seq ${forward ? 'ASC' : 'DESC'} LIMIT ?`,
    ).all(...params, range.from, range.to, limit + 1);
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    if (!forward) page.reverse();
    const first = page[0]?.seq;
    const last = page.at(-1)?.seq;
    // Whether a matching event lies before or after the page, inside the query's time range.
    const exists = (from: number, to: number): boolean =>
      from < to &&
      statement(`SELECT * FROM audit WHERE ${filter}seq >= ? AND seq < ? LIMIT 1`).get(
        ...params,
        from,
        to,
      ) !== undefined;
    let older: number | null = null;
    let newer: number | null = null;
    if (first !== undefined && last !== undefined) {
      if (forward) {
        newer = more ? last : null;
        older = exists(time.from, first) ? first : null;
      } else {
        older = more ? first : null;
        newer = exists(last + 1, time.to) ? last : null;
      }
    }
    return { events: page.map(toEvent), older, newer };
  };
}

/**
 * The statement that appends one audit event, without a transaction of its own: the caller runs it
 * inside one (`appendAudit`'s, or a compose's, so the compose and its audit row commit together).
 */
export function auditInserter(db: Database.Database): (event: AuditEventInput) => number {
  const insert = db.prepare(
    'INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const lastAt = db.prepare<[], { at: string }>('SELECT at FROM audit ORDER BY seq DESC LIMIT 1');
  // `at` never goes below the previous event's, even if the clock steps back: time bounds are then
  // seq bounds (timeRange). The write transaction orders appends, so this holds across brokers.
  return (given) => {
    const event = auditText(given);
    const now = new Date().toISOString();
    const previous = lastAt.get()?.at;
    return Number(
      insert.run(
        previous !== undefined && previous > now ? previous : now,
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
  };
}

/** The audit part of the SQLite store. */
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
  const query = auditQuery(db);
  const queryTx = db.transaction((q: AuditQuery): AuditPage => query(q));
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
