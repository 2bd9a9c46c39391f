// Looms in PostgreSQL: compose (components, operations, receipt and audit event in one
// transaction), inspect, receipts, listings.
//
// Concurrency. A compose first takes an advisory lock on its namespace and request id, so the same
// request sent to two hosts at once runs one after the other and the second replays the first's
// receipt. Extending a loom bumps its row with a conditional UPDATE, which locks it until COMMIT:
// composes into one loom serialize there, a stale `expectedVersion` matches no row
// (`version_conflict`), and without one each compose bumps the version the last one left.
import { randomBytes } from 'node:crypto';
import { newId } from '../ids';
import {
  type ComposeInput,
  type ComposeOutcome,
  type LoomSummary,
  type Receipt,
  STAGE_CAPACITY,
  type Store,
} from '../types';
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

/** What a compose writes, worked out before the one statement that writes it. */
interface Plan {
  loomId: string;
  version: number;
  created: boolean;
  components: {
    id: string;
    position: number;
    ref: string;
    title: string | null;
    stage: string | null;
    seq: number;
  }[];
  operations: { id: string; kind: string; componentId: string }[];
  /** Components that were on a stage before this compose and go to the shelf. */
  shelved: string[];
  displaced: string[];
  focus: string | null;
}

/**
 * Places the components as SQLite's store does: each on its stage or the shelf; a full stage gives
 * up its longest-placed component (a `displace` operation before the component's `add`).
 * `occupants` are the components on a stage now, longest placed first, per stage.
 */
function plan(
  input: ComposeInput,
  target: { loomId: string; version: number; created: boolean },
  start: { position: number; seq: number },
  occupants: Map<string, string[]>,
): Plan {
  const out: Plan = { ...target, components: [], operations: [], shelved: [], displaced: [], focus: null };
  const added = new Map<string, Plan['components'][number]>();
  let { position, seq } = start;
  for (const c of input.components) {
    const id = newId('cmp');
    if (c.stage !== undefined) {
      const on = occupants.get(c.stage) ?? [];
      while (on.length >= STAGE_CAPACITY) {
        const gone = on.shift() as string;
        const mine = added.get(gone);
        if (mine) mine.stage = null;
        else out.shelved.push(gone);
        out.displaced.push(gone);
        out.operations.push({ id: newId('op'), kind: 'displace', componentId: gone });
      }
      on.push(id);
      occupants.set(c.stage, on);
    }
    const row = {
      id,
      position: position++,
      ref: c.ref,
      title: c.title ?? null,
      stage: c.stage ?? null,
      seq: seq++,
    };
    added.set(id, row);
    out.components.push(row);
    out.operations.push({ id: newId('op'), kind: 'add', componentId: id });
    if (c.focus === true) {
      out.focus = id;
      out.operations.push({ id: newId('op'), kind: 'focus', componentId: id });
    }
  }
  return out;
}

/** Claims the loom a compose extends (bumping its version) or names a new one. */
async function claim(
  tx: Tx,
  input: ComposeInput,
  now: string,
): Promise<{ loomId: string; version: number; created: boolean } | ComposeOutcome> {
  if (input.loomId === undefined) return { loomId: newId('loom'), version: 1, created: true };
  const [bumped] = await tx.query<{ version: number }>(
    'UPDATE looms SET version = version + 1, updated_at = $2 WHERE id = $1 AND ($3::int IS NULL OR version = $3) RETURNING version',
    [input.loomId, now, input.expectedVersion ?? null],
  );
  if (bumped) return { loomId: input.loomId, version: bumped.version, created: false };
  const [current] = await tx.query<{ version: number }>('SELECT version FROM looms WHERE id = $1', [
    input.loomId,
  ]);
  if (!current) return { kind: 'not_found', loomId: input.loomId };
  return {
    kind: 'version_conflict',
    loomId: input.loomId,
    expectedVersion: input.expectedVersion as number,
    currentVersion: current.version,
  };
}

/** Where the next components go, and who is on the stages they name (longest placed first). */
async function layout(
  tx: Tx,
  loomId: string,
  input: ComposeInput,
): Promise<{ start: { position: number; seq: number }; occupants: Map<string, string[]> }> {
  const stages = [...new Set(input.components.flatMap((c) => (c.stage === undefined ? [] : [c.stage])))];
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
 * The writes of one compose. `attempt` names this call across its retries: a receipt that carries
 * it was committed by an earlier try of this very call, whose COMMIT answer was lost, so this call
 * committed it (and its audit row) and reports that, not a replay.
 */
async function compose(tx: Tx, input: ComposeInput, attempt: string): Promise<ComposeOutcome> {
  const [prior] = await tx.query<ReceiptRow & { current: number }>(
    `SELECT ${RECEIPT_COLUMNS}, l.version AS current FROM receipts r JOIN looms l ON l.id = r.loom_id
     WHERE r.namespace = $1 AND r.request_id = $2`,
    [input.namespace, input.requestId],
  );
  if (prior) {
    const receipt = receiptView(prior);
    if (prior.attempt === attempt) {
      return { kind: 'committed', receipt, currentVersion: prior.current, displaced: receipt.displaced };
    }
    const outcome: ComposeOutcome =
      prior.args_hash === input.argsHash
        ? { kind: 'replayed', receipt, currentVersion: prior.current }
        : {
            kind: 'request_conflict',
            requestId: input.requestId,
            loomId: prior.loom_id,
            version: prior.version,
          };
    if (input.audit !== undefined) await insertAudit(tx, input.audit(outcome));
    return outcome;
  }
  const now = new Date().toISOString();
  const claimed = await claim(tx, input, now);
  if ('kind' in claimed) {
    if (input.audit !== undefined) await insertAudit(tx, input.audit(claimed));
    return claimed;
  }
  const where = claimed.created
    ? { start: { position: 0, seq: 0 }, occupants: new Map<string, string[]>() }
    : await layout(tx, claimed.loomId, input);
  const p = plan(input, claimed, where.start, where.occupants);
  await write(tx, input, p, now, attempt);
  const receipt: Receipt = {
    loom_id: p.loomId,
    request_id: input.requestId,
    version: p.version,
    created: p.created,
    component_ids: p.components.map((c) => c.id),
    operation_ids: p.operations.map((o) => o.id),
    displaced: p.displaced,
    committed_at: now,
  };
  const outcome: ComposeOutcome = {
    kind: 'committed',
    receipt,
    currentVersion: p.version,
    displaced: p.displaced,
  };
  // Last before COMMIT: the audit append holds the audit order until this transaction ends.
  if (input.audit !== undefined) await insertAudit(tx, input.audit(outcome));
  return outcome;
}

/** The looms part of the PostgreSQL store. */
export function pgLooms(
  db: PgDb,
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
      return db.tx('commit a compose', (tx) => compose(tx, input, attempt), {
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
