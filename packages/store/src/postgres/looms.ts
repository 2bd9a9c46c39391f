// Looms in PostgreSQL: compose (components, operations, receipt and audit event in one
// transaction), inspect, receipts, listings. The compose algorithm is ../compose.ts; this file
// holds its statements.
//
// Concurrency. A compose first takes an advisory lock on its namespace and request id, so the same
// request sent to two hosts at once runs one after the other and the second replays the first's
// receipt. Extending a loom bumps its row with a conditional UPDATE, which locks it until COMMIT:
// composes into one loom serialize there, a stale `expectedVersion` matches no row
// (`version_conflict`), and without one each compose bumps the version the last one left.
import { randomBytes } from 'node:crypto';
import type { ChainSetup } from '../chained';
import { type ComposeDialect, composeAsync, type Layout, type Plan } from '../compose';
import type { ComposeInput, LoomSummary, Store } from '../types';
import {
  type ComponentRow,
  type LoomRow,
  loomView,
  receiptView,
  type ReceiptRow as StoredReceipt,
} from '../view';
import { insertAudit } from './audit';
import { lockKey, type PgDb, type Tx } from './client';

interface ReceiptRow extends StoredReceipt {
  args_hash: string;
  attempt: string;
}

const RECEIPT_COLUMNS =
  'r.request_id, r.args_hash, r.loom_id, r.version, r.created, r.component_ids, r.operation_ids, r.displaced, r.committed_at, r.attempt';

/** Where the next components go, and who is on the stages they name (longest placed first). */
async function layout(tx: Tx, loomId: string, stages: string[]): Promise<Layout> {
  const [row] = await tx.query<{ p: number; s: number; ids: string[]; stages: string[] }>(
    `SELECT COALESCE(MAX(position), -1) AS p, COALESCE(MAX(placed_seq), -1) AS s,
       COALESCE(array_agg(id ORDER BY placed_seq) FILTER (WHERE stage = ANY($2::text[])), '{}') AS ids,
       COALESCE(array_agg(stage ORDER BY placed_seq) FILTER (WHERE stage = ANY($2::text[])), '{}') AS stages
     FROM components WHERE loom_id = $1`,
    [loomId, stages],
  );
  const occupants = new Map<string, string[]>();
  row?.ids.forEach((id, i) => {
    const stage = row.stages[i] as string;
    occupants.set(stage, [...(occupants.get(stage) ?? []), id]);
  });
  return { start: { position: (row?.p ?? -1) + 1, seq: (row?.s ?? -1) + 1 }, occupants };
}

/** Writes a planned compose and its receipt in one statement (its parts are CTEs). */
async function write(tx: Tx, input: ComposeInput, p: Plan, now: string, attempt: string): Promise<void> {
  const params: unknown[] = [];
  const $ = (value: unknown, cast = ''): string => {
    params.push(value);
    return `$${params.length}${cast}`;
  };
  const loom = $(p.loomId);
  const parts: string[] = [];
  if (p.created) {
    parts.push(
      `l AS (INSERT INTO looms (id, version, focus, created_at, updated_at, created_by, run) VALUES (${loom}, 1, ${$(p.focus)}::text, ${$(now)}, ${$(now)}, ${$(input.actor)}, ${$(input.run)}))`,
    );
  } else if (p.focus !== null) {
    parts.push(`f AS (UPDATE looms SET focus = ${$(p.focus)} WHERE id = ${loom})`);
  }
  if (p.shelved.length > 0) {
    parts.push(`d AS (UPDATE components SET stage = NULL WHERE id = ANY(${$(p.shelved, '::text[]')}))`);
  }
  const col = <K extends keyof Plan['components'][number]>(k: K) => p.components.map((c) => c[k]);
  parts.push(
    `c AS (INSERT INTO components (id, loom_id, position, ref, title, stage, placed_seq, added_version, added_by)
       SELECT id, ${loom}, position, ref, title, stage, seq, ${$(p.version)}::int, ${$(input.actor)}
       FROM unnest(${$(col('id'), '::text[]')}, ${$(col('position'), '::int[]')}, ${$(col('ref'), '::text[]')},
         ${$(col('title'), '::text[]')}, ${$(col('stage'), '::text[]')}, ${$(col('seq'), '::int[]')})
       AS t(id, position, ref, title, stage, seq))`,
  );
  parts.push(
    `o AS (INSERT INTO operations (id, loom_id, version, kind, component_id, namespace, request_id)
       SELECT id, ${loom}, ${$(p.version)}::int, kind, component_id, ${$(input.namespace)}, ${$(input.requestId)}
       FROM unnest(${$(
         p.operations.map((o) => o.id),
         '::text[]',
       )}, ${$(
         p.operations.map((o) => o.kind),
         '::text[]',
       )}, ${$(
         p.operations.map((o) => o.componentId),
         '::text[]',
       )}) AS t(id, kind, component_id))`,
  );
  await tx.query(
    `WITH ${parts.join(',\n')}
     INSERT INTO receipts (namespace, request_id, args_hash, loom_id, version, created, component_ids, operation_ids, displaced, committed_at, attempt)
     VALUES (${$(input.namespace)}, ${$(input.requestId)}, ${$(input.argsHash)}, ${loom}, ${$(p.version)}, ${$(p.created)},
       ${$(JSON.stringify(col('id')))}, ${$(JSON.stringify(p.operations.map((o) => o.id)))}, ${$(JSON.stringify(p.displaced))},
       ${$(now)}, ${$(attempt)})`,
    params,
  );
}

/**
 * The compose statements of PostgreSQL, inside one transaction. `attempt` names this call across
 * its retries: a receipt that carries it was committed by an earlier try of this very call, whose
 * COMMIT answer was lost, so this call committed it (and its audit row) and reports that, not a
 * replay.
 */
function composeDialect(tx: Tx, attempt: string, setup: ChainSetup): ComposeDialect<true> {
  return {
    prior: async (namespace, requestId) => {
      const [row] = await tx.query<ReceiptRow & { current: number }>(
        `SELECT ${RECEIPT_COLUMNS}, l.version AS current FROM receipts r JOIN looms l ON l.id = r.loom_id
     WHERE r.namespace = $1 AND r.request_id = $2`,
        [namespace, requestId],
      );
      return row && { ...row, ownCommit: row.attempt === attempt };
    },
    bump: async (loomId, expected, now) => {
      const [bumped] = await tx.query<{ version: number }>(
        'UPDATE looms SET version = version + 1, updated_at = $2 WHERE id = $1 AND ($3::int IS NULL OR version = $3) RETURNING version',
        [loomId, now, expected ?? null],
      );
      return bumped?.version;
    },
    version: async (loomId) => {
      const [current] = await tx.query<{ version: number }>('SELECT version FROM looms WHERE id = $1', [
        loomId,
      ]);
      return current?.version;
    },
    layout: (loomId, stages) => layout(tx, loomId, stages),
    write: (input, p, now) => write(tx, input, p, now, attempt),
    audit: (event) => insertAudit(tx, event, setup),
  };
}

/** The looms part of the PostgreSQL store. */
export function pgLooms(
  db: PgDb,
  setup: ChainSetup,
): Pick<Store, 'compose' | 'inspect' | 'receipts' | 'listLooms' | 'loomReceipts'> {
  const read = { idempotent: true, readOnly: true } as const;
  const single = { idempotent: true, readOnly: true, single: true } as const;
  /** The newest `limit` receipts whose `column` is `key`, newest first. */
  const receiptsWhere = (what: string, column: 'namespace' | 'loom_id', key: string, limit: number) =>
    db.tx(
      what,
      async (tx) =>
        (
          await tx.query<ReceiptRow>(
            `SELECT ${RECEIPT_COLUMNS} FROM receipts r WHERE r.${column} = $1 ORDER BY r.seq DESC LIMIT $2`,
            [key, limit],
          )
        ).map(receiptView),
      single,
    );
  return {
    compose: (input) => {
      const attempt = randomBytes(8).toString('hex');
      return db.tx('commit a compose', (tx) => composeAsync(composeDialect(tx, attempt, setup), input), {
        idempotent: true,
        lock: lockKey(`compose:${input.namespace}\n${input.requestId}`),
        unknownHint:
          'retry the identical compose with the same request_id: it replays the receipt if it landed',
      });
    },
    inspect: (loomId) =>
      db.tx(
        'read a loom',
        async (tx) => {
          const [loom] = await tx.query<LoomRow>(
            'SELECT id, version, focus, created_at, updated_at FROM looms WHERE id = $1',
            [loomId],
          );
          if (!loom) return undefined;
          const rows = await tx.query<ComponentRow>(
            'SELECT id, ref, title, stage, position, added_version FROM components WHERE loom_id = $1 ORDER BY position',
            [loomId],
          );
          return loomView(loom, rows);
        },
        read,
      ),
    receipts: (namespace, limit) => receiptsWhere('read receipts', 'namespace', namespace, limit),
    listLooms: (limit) =>
      db.tx(
        'list the looms',
        (tx) =>
          tx.query<LoomSummary>(
            'SELECT l.id AS loom_id, l.version, l.created_at, l.updated_at, (SELECT COUNT(*)::int FROM components c WHERE c.loom_id = l.id) AS components FROM looms l ORDER BY l.updated_at DESC, l.id LIMIT $1',
            [limit],
          ),
        single,
      ),
    loomReceipts: (loomId, limit) => receiptsWhere("read a loom's receipts", 'loom_id', loomId, limit),
  };
}
