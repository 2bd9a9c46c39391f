// The audit log in SQLite: append one event, read the tail, query a filtered page, prune.
import type Database from 'better-sqlite3';
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

type AuditRow = Omit<AuditEvent, 'payload'> & { payload: string };

const toEvent = (r: AuditRow): AuditEvent => ({
  seq: r.seq,
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

/** The columns of an event as the store's readers give it (the chain's are read by readAuditChain). */
const COLUMNS = 'seq, at, run, actor, job, command, action, phase, outcome, code, reason, payload';

type ChainRow = AuditRow & {
  chain: string | null;
  chain_n: number | null;
  prev: string | null;
  hash: string | null;
};

type CheckpointRow = Omit<AuditCheckpoint, 'publicKey'> & { public_key: string };

const toCheckpoint = ({ public_key, ...c }: CheckpointRow): AuditCheckpoint => ({
  ...c,
  publicKey: public_key,
});

/** The statement that records a signed checkpoint, inside the caller's transaction. */
function checkpointInserter(db: Database.Database): (c: Omit<AuditCheckpoint, 'id'>) => AuditCheckpoint {
  const insert = db.prepare(
    'INSERT INTO audit_checkpoints (chain, n, head, at, kind, removed, public_key, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return (c) => {
    const id = Number(
      insert.run(c.chain, c.n, c.head, c.at, c.kind, c.removed, c.publicKey, c.signature).lastInsertRowid,
    );
    return { id, ...c };
  };
}

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
export function auditInserter(db: Database.Database, setup: ChainSetup): (event: AuditEventInput) => number {
  const insert = db.prepare(
    'INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload, chain, chain_n, prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const lastAt = db.prepare<[], { at: string }>('SELECT at FROM audit ORDER BY seq DESC LIMIT 1');
  // The head is read inside the write transaction (one primary-key lookup): several brokers of one
  // instance share its chain and its file, so a head held in one process's memory could be stale.
  const headOf = db.prepare<[string], { n: number; head: string }>(
    'SELECT n, head FROM audit_heads WHERE chain = ?',
  );
  const setHead = db.prepare(
    'INSERT INTO audit_heads (chain, n, head) VALUES (?, ?, ?) ON CONFLICT (chain) DO UPDATE SET n = excluded.n, head = excluded.head',
  );
  const addCheckpoint = checkpointInserter(db);
  const { chain, signer } = setup;
  /** Inserts an event's row; `link` holds its chain fields, none for an unchained event. */
  const write = (
    event: AuditEventInput,
    at: string,
    payload: string,
    link?: { n: number; prev: string; hash: string },
  ): number =>
    Number(
      insert.run(
        at,
        event.run,
        event.actor,
        event.job,
        event.command,
        event.action,
        event.phase,
        event.outcome,
        event.code,
        event.reason,
        payload,
        link === undefined ? null : chain,
        link?.n ?? null,
        link?.prev ?? null,
        link?.hash ?? null,
      ).lastInsertRowid,
    );
  // `at` never goes below the previous event's, even if the clock steps back: time bounds are then
  // seq bounds (timeRange). The write transaction orders appends, so this holds across brokers.
  return (given) => {
    const event = auditText(given);
    const now = new Date().toISOString();
    const previous = lastAt.get()?.at;
    const at = previous !== undefined && previous > now ? previous : now;
    if (!setup.on) return write(event, at, JSON.stringify(event.payload));
    const head = headOf.get(chain);
    // A chain's start is signed with its first event, so removing every checkpoint shows.
    if (head === undefined && signer !== undefined) {
      addCheckpoint(signCheckpoint(signer, { n: 0, head: GENESIS, kind: 'genesis', at }));
    }
    const n = (head?.n ?? 0) + 1;
    const prev = head?.head ?? GENESIS;
    const payload = JSON.stringify(event.payload);
    // Hashed as it reads back (JSON drops undefined members, turns a Date into text).
    const hash = eventHash({ ...event, at, chain, n, prev, payload: JSON.parse(payload) });
    const seq = write(event, at, payload, { n, prev, hash });
    setHead.run(chain, n, hash);
    return seq;
  };
}

/** The audit part of the SQLite store. */
export function sqliteAudit(
  db: Database.Database,
  setup: ChainSetup,
): {
  appendAudit(event: AuditEventInput): number;
  tailAudit(limit: number): AuditEvent[];
  queryAudit(query: AuditQuery): AuditPage;
  readAuditChain(after: number, limit: number): ChainedAuditEvent[];
  auditCheckpoints(): AuditCheckpoint[];
  checkpointAudit(kind: 'schedule' | 'shutdown' | 'export'): AuditCheckpoint | undefined;
  prune(before: Date): PruneResult;
} {
  const insert = auditInserter(db, setup);
  const tail = db.prepare<[number], AuditRow>(
    `SELECT * FROM (SELECT ${COLUMNS} FROM audit ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC`,
  );
  const appendTx = db.transaction((event: AuditEventInput): number => insert(event));
  const tailTx = db.transaction((limit: number): AuditEvent[] => tail.all(limit).map(toEvent));
  const query = auditQuery(db);
  const queryTx = db.transaction((q: AuditQuery): AuditPage => query(q));
  const chainPage = db.prepare<[number, number], ChainRow>(
    `SELECT ${COLUMNS}, chain, chain_n, prev, hash FROM audit WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  const readChainTx = db.transaction((after: number, limit: number): ChainedAuditEvent[] =>
    chainPage
      .all(after, Math.max(1, Math.min(limit, AUDIT_PAGE_MAX)))
      .map((r) => ({ ...toEvent(r), chain: r.chain, n: r.chain_n, prev: r.prev, hash: r.hash })),
  );
  const checkpoints = db.prepare<[], CheckpointRow>(
    'SELECT id, chain, n, head, at, kind, removed, public_key, signature FROM audit_checkpoints ORDER BY chain, n, id',
  );
  const addCheckpoint = checkpointInserter(db);
  const headOf = db.prepare<[string], { n: number; head: string }>(
    'SELECT n, head FROM audit_heads WHERE chain = ?',
  );
  const setHead = db.prepare('INSERT INTO audit_heads (chain, n, head) VALUES (?, ?, ?)');
  const newest = db.prepare<[string], { n: number }>(
    'SELECT n FROM audit_checkpoints WHERE chain = ? ORDER BY n DESC LIMIT 1',
  );
  const checkpointTx = db.transaction(
    (kind: 'schedule' | 'shutdown' | 'export'): AuditCheckpoint | undefined => {
      const { signer, chain } = setup;
      if (signer === undefined) return undefined;
      const head = headOf.get(chain);
      if (head === undefined) {
        // A chain not begun yet begins here: its head at position 0, its start signed.
        setHead.run(chain, 0, GENESIS);
        return addCheckpoint(signCheckpoint(signer, { n: 0, head: GENESIS, kind: 'genesis' }));
      }
      if (newest.get(chain)?.n === head.n) return undefined;
      return addCheckpoint(signCheckpoint(signer, { n: head.n, head: head.head, kind }));
    },
  );
  // What a prune removes of this store's chain is a prefix of it (`at` never goes backwards).
  const prunedThrough = db.prepare<[string, string], { n: number; hash: string }>(
    'SELECT chain_n AS n, hash FROM audit WHERE at < ? AND chain = ? ORDER BY seq DESC LIMIT 1',
  );
  const pruneAudit = db.prepare<[string, string]>(
    'DELETE FROM audit WHERE at < ? AND (chain = ? OR chain IS NULL)',
  );
  const lastPrune = db.prepare<[string], { n: number }>(
    "SELECT n FROM audit_checkpoints WHERE chain = ? AND kind = 'prune' ORDER BY n DESC LIMIT 1",
  );
  const pruneCheckpoints = db.prepare<[string, number]>(
    'DELETE FROM audit_checkpoints WHERE chain = ? AND n < ?',
  );
  // A spent approval's last change: its use, else its decision, else its expiry.
  const pruneApprovals = db.prepare<[string, string]>(
    "DELETE FROM approvals WHERE status IN ('consumed', 'denied', 'expired') AND COALESCE(consumed_at, decided_at, expires_at) < ? AND expires_at < ?",
  );
  // Their delivery logs go with them (an approval's notices are read only beside it).
  const pruneNotices = db.prepare<[string, string]>(
    "DELETE FROM approval_notices WHERE approval IN (SELECT id FROM approvals WHERE status IN ('consumed', 'denied', 'expired') AND COALESCE(consumed_at, decided_at, expires_at) < ? AND expires_at < ?)",
  );
  const pruneTx = db.transaction((before: string): PruneResult => {
    const { chain, signer } = setup;
    const through = prunedThrough.get(before, chain);
    const audit = pruneAudit.run(before, chain).changes;
    if (through !== undefined && signer !== undefined) {
      // A signed statement of where the chain now starts, and how much went.
      const removedOfChain = through.n - (lastPrune.get(chain)?.n ?? 0);
      addCheckpoint(
        signCheckpoint(signer, {
          n: through.n,
          head: through.hash,
          kind: 'prune',
          removed: removedOfChain,
        }),
      );
      pruneCheckpoints.run(chain, through.n);
    }
    pruneNotices.run(before, before);
    const approvals = pruneApprovals.run(before, before).changes;
    return { audit, approvals };
  });
  return {
    appendAudit: (event) => appendTx.immediate(event),
    tailAudit: (limit) => tailTx(limit),
    queryAudit: (query) => queryTx(query),
    readAuditChain: (after, limit) => readChainTx(after, limit),
    auditCheckpoints: () => checkpoints.all().map(toCheckpoint),
    checkpointAudit: (kind) => checkpointTx.immediate(kind),
    prune: (before) => {
      const removed = pruneTx.immediate(before.toISOString());
      // Hand the freed pages back and cut the write-ahead log down to nothing.
      db.pragma('wal_checkpoint(TRUNCATE)');
      return removed;
    },
  };
}
