// The compose algorithm, once for both stores, inside the caller's one transaction: a request id
// already used replays its receipt (or is a conflict); otherwise the loom is claimed (created, or
// its version bumped), the components are placed on their stages or the shelf (a full stage gives
// up its longest-placed component), everything is written with the receipt, and the audit event
// built from the outcome is appended last. A dialect (ComposeDialect) supplies only its statements
// and driver calls: SQLite's run synchronously, row by row; PostgreSQL's asynchronously, the writes
// as one statement.
import { newId } from './ids';
import { type Answer, ask, runAsync, runSync, type Steps } from './steps';
import {
  type AuditEventInput,
  type ComposeInput,
  type ComposeOutcome,
  type Receipt,
  STAGE_CAPACITY,
} from './types';
import { type ReceiptRow, receiptView } from './view';

/** The stored receipt of a request id, with what a compose decides by beside it. */
export interface PriorReceipt extends ReceiptRow {
  args_hash: string;
  /** The version its loom is at now. */
  current: number;
  /**
   * True when an earlier try of this very call committed it and the COMMIT's answer was lost
   * (PostgreSQL retries a compose; SQLite never needs to): the call reports that commit as its own.
   */
  ownCommit: boolean;
}

/** The loom a compose writes: a new one, or an existing one whose version it bumped. */
export interface Claim {
  loomId: string;
  version: number;
  created: boolean;
}

/** Where a compose's components go on an existing loom. */
export interface Layout {
  /** The next position and placement sequence number. */
  start: { position: number; seq: number };
  /** The components now on each stage the compose names, longest placed first. */
  occupants: Map<string, string[]>;
}

/** One component as a compose writes it. */
export interface PlannedComponent {
  id: string;
  position: number;
  ref: string;
  title: string | null;
  /** `null`: on the shelf (asked for no stage, or displaced by a later component of the same compose). */
  stage: string | null;
  seq: number;
}

/** What a compose writes, worked out before any of it is written. */
export interface Plan extends Claim {
  components: PlannedComponent[];
  /** In the order they happened: a `displace` comes before the `add` that caused it. */
  operations: { id: string; kind: 'add' | 'displace' | 'focus'; componentId: string }[];
  /** Components that were on a stage before this compose and go to the shelf. */
  shelved: string[];
  displaced: string[];
  focus: string | null;
}

/**
 * The statements of a compose in one dialect, each run inside the compose's transaction. `Async`
 * says whether its driver answers with values (better-sqlite3) or with promises (pg).
 */
export interface ComposeDialect<Async extends boolean> {
  /** The receipt a namespace's request id already has, with its loom's current version. */
  prior(namespace: string, requestId: string): Answer<PriorReceipt | undefined, Async>;
  /**
   * Bumps a loom's version, only from `expected` when that is given: the new version, or
   * `undefined` when no loom was bumped (none has the id, or it is not at `expected`).
   */
  bump(loomId: string, expected: number | undefined, now: string): Answer<number | undefined, Async>;
  /** A loom's current version; `undefined` when no loom has the id. */
  version(loomId: string): Answer<number | undefined, Async>;
  /** Where the next components of an existing loom go, for the stages named. */
  layout(loomId: string, stages: string[]): Answer<Layout, Async>;
  /** Writes a planned compose (the loom's row too, when it creates one) and its receipt. */
  write(input: ComposeInput, plan: Plan, now: string): Answer<void, Async>;
  /** Appends the compose's audit event. */
  audit(event: AuditEventInput): Answer<unknown, Async>;
}

/** A compose through a synchronous dialect, inside the transaction the caller holds. */
export function composeSync(dialect: ComposeDialect<false>, input: ComposeInput): ComposeOutcome {
  return runSync(composeSteps(dialect, input));
}

/** A compose through an asynchronous dialect, inside the transaction the caller holds. */
export function composeAsync(dialect: ComposeDialect<true>, input: ComposeInput): Promise<ComposeOutcome> {
  return runAsync(composeSteps(dialect, input));
}

function* composeSteps(d: ComposeDialect<boolean>, input: ComposeInput): Steps<ComposeOutcome> {
  const prior = yield* ask(d.prior(input.namespace, input.requestId));
  if (prior?.ownCommit) {
    // Its audit row committed with it.
    const receipt = receiptView(prior);
    return { kind: 'committed', receipt, currentVersion: prior.current, displaced: receipt.displaced };
  }
  const outcome = prior === undefined ? yield* commit(d, input) : again(input, prior);
  // Last before COMMIT: in PostgreSQL the audit append holds the audit order until this transaction ends.
  if (input.audit !== undefined) yield* ask(d.audit(input.audit(outcome)));
  return outcome;
}

/** A request id used before: the same arguments replay its receipt, others are a conflict. */
function again(input: ComposeInput, prior: PriorReceipt): ComposeOutcome {
  if (prior.args_hash === input.argsHash) {
    return { kind: 'replayed', receipt: receiptView(prior), currentVersion: prior.current };
  }
  return {
    kind: 'request_conflict',
    requestId: input.requestId,
    loomId: prior.loom_id,
    version: prior.version,
  };
}

/** A new request id: claims the loom, places the components, writes them and the receipt. */
function* commit(d: ComposeDialect<boolean>, input: ComposeInput): Steps<ComposeOutcome> {
  const now = new Date().toISOString();
  const claimed = yield* claim(d, input, now);
  if ('kind' in claimed) return claimed;
  const where: Layout = claimed.created
    ? { start: { position: 0, seq: 0 }, occupants: new Map() }
    : yield* ask(d.layout(claimed.loomId, stagesOf(input)));
  const p = plan(input, claimed, where);
  yield* ask(d.write(input, p, now));
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
  return { kind: 'committed', receipt, currentVersion: p.version, displaced: p.displaced };
}

/** Names a new loom, or bumps the version of the one the compose extends. */
function* claim(d: ComposeDialect<boolean>, input: ComposeInput, now: string): Steps<Claim | ComposeOutcome> {
  if (input.loomId === undefined) return { loomId: newId('loom'), version: 1, created: true };
  const bumped = yield* ask(d.bump(input.loomId, input.expectedVersion, now));
  if (bumped !== undefined) return { loomId: input.loomId, version: bumped, created: false };
  const current = yield* ask(d.version(input.loomId));
  if (current === undefined) return { kind: 'not_found', loomId: input.loomId };
  return {
    kind: 'version_conflict',
    loomId: input.loomId,
    // The loom exists and was not bumped: only an expected version stops a bump.
    expectedVersion: input.expectedVersion as number,
    currentVersion: current,
  };
}

/** The stages a compose names, each once. */
function stagesOf(input: ComposeInput): string[] {
  return [...new Set(input.components.flatMap((c) => (c.stage === undefined ? [] : [c.stage])))];
}

/**
 * Places the components: each on its stage or the shelf; a full stage gives up its longest-placed
 * component (a `displace` operation before the component's `add`), which may be one this compose
 * placed a moment before. `where.occupants` is updated as components are placed.
 */
function plan(input: ComposeInput, claimed: Claim, where: Layout): Plan {
  const out: Plan = { ...claimed, components: [], operations: [], shelved: [], displaced: [], focus: null };
  const added = new Map<string, PlannedComponent>();
  let { position, seq } = where.start;
  for (const c of input.components) {
    const id = newId('cmp');
    if (c.stage !== undefined) {
      const on = where.occupants.get(c.stage) ?? [];
      while (on.length >= STAGE_CAPACITY) {
        const gone = on.shift() as string;
        const mine = added.get(gone);
        if (mine) mine.stage = null;
        else out.shelved.push(gone);
        out.displaced.push(gone);
        out.operations.push({ id: newId('op'), kind: 'displace', componentId: gone });
      }
      on.push(id);
      where.occupants.set(c.stage, on);
    }
    const row: PlannedComponent = {
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
