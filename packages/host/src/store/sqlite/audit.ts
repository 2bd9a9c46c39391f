// The audit log in SQLite: append one event, read the tail.
import type Database from 'better-sqlite3';
import type { AuditEvent, AuditEventInput } from '../types';

/** The audit part of the SQLite store. */
export function sqliteAudit(db: Database.Database): {
  appendAudit(event: AuditEventInput): number;
  tailAudit(limit: number): AuditEvent[];
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
  return {
    appendAudit: (event) => appendTx.immediate(event),
    tailAudit: (limit) => tailTx(limit),
  };
}
