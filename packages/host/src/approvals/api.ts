// The approvals of one instance as the people deciding them reach them: `harness approvals` and
// `loom approvals` (through an instance directory), the console (through the store it holds open)
// and an MCP client's elicitation. Each reads, checks and decides through these, so the single
// use, the exact-arguments key, the expiry and the wording of a refusal are the same everywhere.
import type { ApprovalRecord, ApprovalStatus, Store } from '@harness/store';
import { openStore } from '../instance';
import {
  type Decidable,
  type Decider,
  type DecisionResult,
  decidable,
  decide,
  notDecidableText,
} from './decide';

/** What the approvals API reads and writes of a store. */
export type ApprovalRows = Pick<Store, 'getApproval' | 'listApprovals' | 'decideApproval'>;

/** The approvals of one store: what a person lists, opens and decides. */
export interface Approvals {
  /** Approvals newest first: pending only unless `status` says otherwise (`all`: every status). */
  list(filter?: { status?: ApprovalStatus | 'all' }): Promise<ApprovalRecord[]>;
  /** One approval by id, as stored; `undefined` when there is none. */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Whether approval `id` may be decided now (pending, with time left), and for how long; else why not. */
  decidable(id: string): Promise<Decidable>;
  /** Approves or denies approval `id` as `decider` says; an id that cannot be decided is data. */
  decide(id: string, decision: 'approved' | 'denied', decider: Decider): Promise<DecisionResult>;
}

/** The approvals API over an open store (a console holds one open). */
export function approvalsOf(store: ApprovalRows): Approvals {
  return {
    list: (filter = {}) => store.listApprovals(filter),
    get: (id) => store.getApproval(id),
    decidable: (id) => decidable(store, id),
    decide: (id, decision, decider) => decide(store, id, decision, decider),
  };
}

/** Opens the store of the instance at `instanceDir`, gives `use` its approvals, and closes the store. */
export async function withApprovals<T>(
  instanceDir: string,
  use: (approvals: Approvals) => Promise<T>,
): Promise<T> {
  const store = await openStore(instanceDir);
  try {
    return await use(approvalsOf(store));
  } finally {
    await store.close();
  }
}

/** A person's decision on one approval: the record decided, or why this id cannot be decided. */
export type PersonDecision = { ok: true; record: ApprovalRecord } | { ok: false; message: string };

/**
 * Approves or denies approval `id` of the instance as `by`, from a command line (`via: cli`). An id
 * that is unknown or no longer pending is data: a message naming the id, what it is, and
 * `listCommand` (the command line, as the person would type it, that lists the ids: `harness
 * approvals list`, with `--instance` when needed).
 */
export async function decideAsPerson(
  instanceDir: string,
  id: string,
  decision: 'approved' | 'denied',
  by: string,
  listCommand: string,
): Promise<PersonDecision> {
  const result = await withApprovals(instanceDir, (a) => a.decide(id, decision, { by, via: 'cli' }));
  return result.ok
    ? { ok: true, record: result.record }
    : { ok: false, message: notDecidableText(result, { instanceDir, listCommand }) };
}
