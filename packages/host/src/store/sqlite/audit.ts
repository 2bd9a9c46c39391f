// The audit log in SQLite: append one event, read the tail.
import type Database from 'better-sqlite3';
import type { AuditEvent, AuditEventInput, PruneResult } from '../types';

/** The audit part of the SQLite store. */
export function sqliteAudit(db: Database.Database): {
  appendAudit(event: AuditEventInput): number;
  tailAudit(limit: number): AuditEvent[];
  prune(before: Date): PruneResult;
} {
  const insert = db.prepare(
    'INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const tail = db.prepare<[number], Omit<AuditEvent, 'payload'> & { payload: string }>(
    'SELECT * FROM (SELECT * FROM audit ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC',
  );
  const appendTx = db.transaction((event: AuditEventInput): number =>
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
    ),
  );
  const tailTx = db.transaction((limit: number): AuditEvent[] =>
    tail.all(limit).map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> })),
  );
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
    prune: (before) => {
      const removed = pruneTx.immediate(before.toISOString());
      // Hand the freed pages back and cut the write-ahead log down to nothing.
      db.pragma('wal_checkpoint(TRUNCATE)');
      return removed;
    },
  };
}
