// The audit log in PostgreSQL: append one event, read the tail, query a filtered page, prune.
//
// Order. `seq` is an identity column, and every append first updates the one row of `audit_clock`
// in the same statement, so the row lock on it is held from the moment a seq is drawn until the
// transaction ends: appends of all hosts take seqs in commit order. A reader that sees seq n
// therefore sees every committed event below n, and an `after` cursor (what `--follow` and a
// console page with) never steps over an event that commits later. A rolled-back append leaves a
// gap in `seq`; gaps are never filled. The same row keeps `at` from going backwards across hosts.
import { auditFilters, auditLimit, cursorRange, timeRange } from '../audit-page';
import { auditText } from '../audit-text';
import type { AuditEvent, AuditEventInput, AuditPage, AuditQuery, PruneResult } from '../types';
import type { PgDb, Tx } from './client';

interface AuditRow extends Omit<AuditEvent, 'seq' | 'payload'> {
  seq: string;
  payload: string;
}

const toEvent = (r: AuditRow): AuditEvent => ({
  seq: Number(r.seq),
  at: r.at,
  run: r.run,
  actor: r.actor,
  job: r.job,
  command: r.command,
  action: r.action,
  phase: r.phase,
  outcome: r.outcome,
  code: r.code,
  reason: r.reason,
  payload: JSON.parse(r.payload) as Record<string, unknown>,
});

const COLUMNS = 'seq, at, run, actor, job, command, action, phase, outcome, code, reason, payload';

/**
 * Appends one event inside the caller's transaction (`appendAudit`'s own, or a compose's, so the
 * compose and its row commit together). Run it last before COMMIT: the clock row stays locked, and
 * every other host's append waits, until this transaction ends.
 */
export async function insertAudit(tx: Tx, given: AuditEventInput): Promise<number> {
  const e = auditText(given);
  const [row] = await tx.query<{ seq: string }>(
    `WITH clock AS (UPDATE audit_clock SET at = GREATEST(at, $1) WHERE id = 1 RETURNING at)
     INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload)
     SELECT clock.at, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 FROM clock RETURNING seq`,
    [
      new Date().toISOString(),
      e.run,
      e.actor,
      e.job,
      e.command,
      e.action,
      e.phase,
      e.outcome,
      e.code,
      e.reason,
      JSON.stringify(e.payload),
    ],
  );
  return Number(row?.seq);
}

/** One filtered page, read in one snapshot (see `AuditQuery`; the rules are `../audit-page.ts`). */
async function queryPage(tx: Tx, q: AuditQuery): Promise<AuditPage> {
  const limit = auditLimit(q);
  const none: AuditPage = { events: [], older: null, newer: null };
  // The first seq at or after each time bound (the `at` index holds seq beside it).
  const firsts = new Map<string, number | undefined>();
  for (const at of [q.since, q.until]) {
    if (at === undefined) continue;
    const [row] = await tx.query<{ seq: string }>(
      'SELECT seq FROM audit WHERE at >= $1 ORDER BY at, seq LIMIT 1',
      [at],
    );
    firsts.set(at, row === undefined ? undefined : Number(row.seq));
  }
  const time = timeRange((at) => firsts.get(at), q);
  const range = time && cursorRange(time, q);
  if (time === undefined || range === undefined) return none;
  const params: unknown[] = [];
  const filter = auditFilters(q)
    .map(([column, value]) => {
      params.push(value);
      return `${column} = $${params.length} AND `;
    })
    .join('');
  const n = params.length;
  const forward = q.after !== undefined;
  const rows = await tx.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit WHERE ${filter}seq >= $${n + 1} AND seq < $${n + 2} ORDER BY seq ${forward ? 'ASC' : 'DESC'} LIMIT $${n + 3}`,
    [...params, range.from, range.to, limit + 1],
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit).map(toEvent);
  if (!forward) page.reverse();
  const first = page[0]?.seq;
  const last = page.at(-1)?.seq;
  // Whether a matching event lies before or after the page, inside the query's time range.
  const exists = async (from: number, to: number): Promise<boolean> =>
    from < to &&
    (
      await tx.query(`SELECT 1 FROM audit WHERE ${filter}seq >= $${n + 1} AND seq < $${n + 2} LIMIT 1`, [
        ...params,
        from,
        to,
      ])
    ).length > 0;
  let older: number | null = null;
  let newer: number | null = null;
  if (first !== undefined && last !== undefined) {
    if (forward) {
      newer = more ? last : null;
      older = (await exists(time.from, first)) ? first : null;
    } else {
      older = more ? first : null;
      newer = (await exists(last + 1, time.to)) ? last : null;
    }
  }
  return { events: page, older, newer };
}

/** The audit part of the PostgreSQL store. */
export function pgAudit(db: PgDb): {
  appendAudit(event: AuditEventInput): Promise<number>;
  tailAudit(limit: number): Promise<AuditEvent[]>;
  queryAudit(query: AuditQuery): Promise<AuditPage>;
  prune(before: Date): Promise<PruneResult>;
} {
  const read = { idempotent: true, readOnly: true } as const;
  return {
    appendAudit: (event) =>
      db.tx('append an audit event', (tx) => insertAudit(tx, event), {
        idempotent: false,
        unknownHint: 'the event may or may not be in the audit log (loom audit tail shows it if it is)',
      }),
    tailAudit: (limit) =>
      db.tx(
        'read the audit log',
        async (tx) =>
          (
            await tx.query<AuditRow>(
              `SELECT * FROM (SELECT ${COLUMNS} FROM audit ORDER BY seq DESC LIMIT $1) t ORDER BY seq ASC`,
              [limit],
            )
          ).map(toEvent),
        read,
      ),
    queryAudit: (query) => db.tx('query the audit log', (tx) => queryPage(tx, query), read),
    prune: (before) =>
      db.tx(
        'prune the audit log and spent approvals',
        async (tx) => {
          const iso = before.toISOString();
          const count = async (sql: string): Promise<number> =>
            (
              await tx.query<{ n: number }>(
                `WITH d AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM d`,
                [iso],
              )
            )[0]?.n ?? 0;
          const audit = await count('DELETE FROM audit WHERE at < $1');
          // A spent approval's last change: its use, else its decision, else its expiry.
          const approvals = await count(
            "DELETE FROM approvals WHERE status IN ('consumed', 'denied', 'expired') AND COALESCE(consumed_at, decided_at, expires_at) < $1 AND expires_at < $1",
          );
          return { audit, approvals };
        },
        // Deleting what is older than a date twice deletes it once: harmless to run again.
        { idempotent: true },
      ),
  };
}
