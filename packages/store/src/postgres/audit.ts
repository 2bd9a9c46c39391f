// The audit log in PostgreSQL: append one event, read the tail, query a filtered page, prune.
//
// Order. `seq` is an identity column, and every append first updates the one row of `audit_clock`
// before it draws a seq, so the row lock on it is held from before a seq is drawn until the
// transaction ends: appends of all hosts take seqs in commit order. A reader that sees seq n
// therefore sees every committed event below n, and an `after` cursor (what `--follow` and a
// console page with) never steps over an event that commits later. A rolled-back append leaves a
// gap in `seq`; gaps are never filled. The same row keeps `at` from going backwards across hosts.
//
// Chains. Each host appends to its own chain (docs/audit.md), whose head is a row of `audit_heads`.
// The head is read once the clock row's lock is held: the order of one chain is its commit order,
// and no two appends link to one head.
import { eventHash, GENESIS, signCheckpoint } from '../audit-chain';
import { auditFilters, auditLimit, cursorRange, timeRange } from '../audit-page';
import { auditText } from '../audit-text';
import type { ChainSetup } from '../chained';
import {
  AUDIT_PAGE_MAX,
  type AuditCheckpoint,
  type AuditEvent,
  type AuditEventInput,
  type AuditPage,
  type AuditQuery,
  type ChainedAuditEvent,
  type PruneResult,
} from '../types';
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
export async function insertAudit(tx: Tx, given: AuditEventInput, setup: ChainSetup): Promise<number> {
  const e = auditText(given);
  const { chain, signer } = setup;
  const [clock] = await tx.query<{ at: string }>(
    'UPDATE audit_clock SET at = GREATEST(at, $1) WHERE id = 1 RETURNING at',
    [new Date().toISOString()],
  );
  if (!setup.on) {
    const [row] = await tx.query<{ seq: string }>(
      `INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING seq`,
      [
        clock?.at ?? '',
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
  // A statement of its own, after the clock's lock is held: its snapshot is taken now, so it sees
  // every append that committed before (read in the same statement, it would see the snapshot
  // taken before the lock wait, and two concurrent appends would link to one head).
  const [current] = await tx.query<{ n: string; head: string }>(
    'SELECT n, head FROM audit_heads WHERE chain = $1',
    [chain],
  );
  const at = clock?.at ?? '';
  const n = current === undefined ? 1 : Number(current.n) + 1;
  const prev = current?.head ?? GENESIS;
  const payload = JSON.stringify(e.payload);
  // Hashed as it reads back (JSON drops undefined members, turns a Date into text).
  const hash = eventHash({ ...e, at, chain, n, prev, payload: JSON.parse(payload) });
  // A chain's start is signed with its first event, so removing every checkpoint shows.
  const genesis =
    current === undefined && signer !== undefined
      ? signCheckpoint(signer, { n: 0, head: GENESIS, kind: 'genesis', at })
      : undefined;
  const params = [
    at,
    e.run,
    e.actor,
    e.job,
    e.command,
    e.action,
    e.phase,
    e.outcome,
    e.code,
    e.reason,
    payload,
    chain,
    n,
    prev,
    hash,
  ];
  const start =
    genesis === undefined
      ? ''
      : `, g AS (INSERT INTO audit_checkpoints (chain, n, head, at, kind, removed, public_key, signature)
         VALUES ($12, 0, $16, $17, 'genesis', 0, $18, $19))`;
  if (genesis !== undefined) params.push(genesis.head, genesis.at, genesis.publicKey, genesis.signature);
  const [row] = await tx.query<{ seq: string }>(
    `WITH e AS (INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload, chain, chain_n, prev, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING seq),
     h AS (INSERT INTO audit_heads (chain, n, head) VALUES ($12, $13, $15)
       ON CONFLICT (chain) DO UPDATE SET n = EXCLUDED.n, head = EXCLUDED.head)${start}
     SELECT seq FROM e`,
    params,
  );
  return Number(row?.seq);
}

interface ChainRow extends AuditRow {
  chain: string | null;
  chain_n: number | null;
  prev: string | null;
  hash: string | null;
}

interface CheckpointRow {
  id: string;
  chain: string;
  n: string;
  head: string;
  at: string;
  kind: AuditCheckpoint['kind'];
  removed: string;
  public_key: string;
  signature: string;
}

const toCheckpoint = (r: CheckpointRow): AuditCheckpoint => ({
  id: Number(r.id),
  chain: r.chain,
  n: Number(r.n),
  head: r.head,
  at: r.at,
  kind: r.kind,
  removed: Number(r.removed),
  publicKey: r.public_key,
  signature: r.signature,
});

/** Records a signed checkpoint inside the caller's transaction. */
async function insertCheckpoint(tx: Tx, c: Omit<AuditCheckpoint, 'id'>): Promise<AuditCheckpoint> {
  const [row] = await tx.query<{ id: string }>(
    `INSERT INTO audit_checkpoints (chain, n, head, at, kind, removed, public_key, signature)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [c.chain, c.n, c.head, c.at, c.kind, c.removed, c.publicKey, c.signature],
  );
  return { id: Number(row?.id), ...c };
}

/** Signs the head of the store's chain unless its newest checkpoint already has it. */
async function checkpointHead(
  tx: Tx,
  setup: ChainSetup,
  kind: 'schedule' | 'shutdown' | 'export',
): Promise<AuditCheckpoint | undefined> {
  const { chain, signer } = setup;
  if (signer === undefined) return undefined;
  // The head row's lock keeps two checkpoints of one head from racing; appends take the clock first.
  const [head] = await tx.query<{ n: string; head: string; signed: string | null }>(
    `SELECT h.n, h.head, (SELECT max(n) FROM audit_checkpoints c WHERE c.chain = h.chain) AS signed
     FROM audit_heads h WHERE h.chain = $1 FOR UPDATE`,
    [chain],
  );
  if (head === undefined) {
    // A chain not begun yet begins here: its head at position 0, its start signed. A concurrent
    // beginning waits on the key and then adds nothing.
    const [begun] = await tx.query<{ chain: string }>(
      'INSERT INTO audit_heads (chain, n, head) VALUES ($1, 0, $2) ON CONFLICT (chain) DO NOTHING RETURNING chain',
      [chain, GENESIS],
    );
    if (begun === undefined) return undefined;
    return insertCheckpoint(tx, signCheckpoint(signer, { n: 0, head: GENESIS, kind: 'genesis' }));
  }
  if (head.signed === head.n) return undefined;
  return insertCheckpoint(tx, signCheckpoint(signer, { n: Number(head.n), head: head.head, kind }));
}

/** Deletes this store's chain (and unchained events) before `iso`, signing where the chain now starts. */
async function pruneChain(tx: Tx, setup: ChainSetup, iso: string): Promise<number> {
  const { chain, signer } = setup;
  // What a prune removes of one chain is a prefix of it (`at` never goes backwards).
  const [through] = await tx.query<{ n: string; hash: string; last: string | null }>(
    `SELECT chain_n AS n, hash,
       (SELECT max(n) FROM audit_checkpoints WHERE chain = $2 AND kind = 'prune') AS last
     FROM audit WHERE at < $1 AND chain = $2 ORDER BY seq DESC LIMIT 1`,
    [iso, chain],
  );
  const [{ n: removed } = { n: 0 }] = await tx.query<{ n: number }>(
    'WITH d AS (DELETE FROM audit WHERE at < $1 AND (chain = $2 OR chain IS NULL) RETURNING 1) SELECT count(*)::int AS n FROM d',
    [iso, chain],
  );
  if (through !== undefined && signer !== undefined) {
    const n = Number(through.n);
    await insertCheckpoint(
      tx,
      signCheckpoint(signer, {
        n,
        head: through.hash,
        kind: 'prune',
        removed: n - Number(through.last ?? 0),
      }),
    );
    await tx.query('DELETE FROM audit_checkpoints WHERE chain = $1 AND n < $2', [chain, n]);
  }
  return removed;
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
export function pgAudit(
  db: PgDb,
  setup: ChainSetup,
): {
  appendAudit(event: AuditEventInput): Promise<number>;
  tailAudit(limit: number): Promise<AuditEvent[]>;
  queryAudit(query: AuditQuery): Promise<AuditPage>;
  readAuditChain(after: number, limit: number): Promise<ChainedAuditEvent[]>;
  auditCheckpoints(): Promise<AuditCheckpoint[]>;
  checkpointAudit(kind: 'schedule' | 'shutdown' | 'export'): Promise<AuditCheckpoint | undefined>;
  prune(before: Date): Promise<PruneResult>;
} {
  const read = { idempotent: true, readOnly: true } as const;
  return {
    appendAudit: (event) =>
      db.tx('append an audit event', (tx) => insertAudit(tx, event, setup), {
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
    readAuditChain: (after, limit) =>
      db.tx(
        'read the audit chain',
        async (tx) =>
          (
            await tx.query<ChainRow>(
              `SELECT ${COLUMNS}, chain, chain_n, prev, hash FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2`,
              [after, Math.max(1, Math.min(limit, AUDIT_PAGE_MAX))],
            )
          ).map((r) => ({
            ...toEvent(r),
            chain: r.chain,
            n: r.chain_n === null ? null : Number(r.chain_n),
            prev: r.prev,
            hash: r.hash,
          })),
        { ...read, single: true },
      ),
    auditCheckpoints: () =>
      db.tx(
        'read the audit checkpoints',
        async (tx) =>
          (
            await tx.query<CheckpointRow>(
              'SELECT id, chain, n, head, at, kind, removed, public_key, signature FROM audit_checkpoints ORDER BY chain, n, id',
            )
          ).map(toCheckpoint),
        { ...read, single: true },
      ),
    checkpointAudit: (kind) =>
      db.tx('checkpoint the audit chain', (tx) => checkpointHead(tx, setup, kind), { idempotent: true }),
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
          const audit = await pruneChain(tx, setup, iso);
          // A spent approval's last change: its use, else its decision, else its expiry. Its
          // delivery log goes with it.
          await count(
            "DELETE FROM approval_notices WHERE approval IN (SELECT id FROM approvals WHERE status IN ('consumed', 'denied', 'expired') AND COALESCE(consumed_at, decided_at, expires_at) < $1 AND expires_at < $1)",
          );
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
