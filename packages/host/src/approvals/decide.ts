// A person's decision on a pending approval: who decides (`person:<user>`, `elicitation:<client>`),
// where (`cli`, `console`, `elicitation`) and with what proof (a passkey's assertion, which the
// console checks first). Only a pending approval whose time is not up can be decided; the store
// checks that again in the decision's own transaction, which also writes its audit row. An id that
// cannot be decided is data, with one wording wherever it is said.
import {
  type ApprovalRecord,
  type ApprovalStatus,
  type DecisionAssertion,
  type DecisionVia,
  type Store,
  StoreError,
  StoreErrorCode,
} from '@harness/store';
import { APPROVAL_TTL_MS, msLeft, statusAt } from './expiry';

/** What a decision reads and writes of a store. */
export type DecisionRows = Pick<Store, 'getApproval' | 'decideApproval'>;

/** Who decides an approval, where, and with what proof. */
export interface Decider {
  /** Who decided, as the approval and its audit row record it: `person:<user>`, `elicitation:<client>`. */
  readonly by: string;
  /** Where the decision was given. */
  readonly via?: DecisionVia | undefined;
  /** The person's passkey assertion over the decision, kept with it and in its audit row. */
  readonly assertion?: DecisionAssertion | undefined;
  /** How long an approved call may then run once, in ms; default {@link APPROVAL_TTL_MS}. */
  readonly ttlMs?: number | undefined;
}

/** Why an approval cannot be decided: no approval has the id, or it is no longer pending. */
export type NotDecidable =
  | { readonly ok: false; readonly code: 'not_found'; readonly id: string }
  | {
      readonly ok: false;
      readonly code: 'not_pending';
      readonly id: string;
      /** Its status now (a pending one whose time is up is `expired`). */
      readonly status: ApprovalStatus;
      readonly record: ApprovalRecord;
    };

/** An approval a person may decide now, and the ms left to decide it; else why not. */
export type Decidable =
  | { readonly ok: true; readonly record: ApprovalRecord; readonly msLeft: number }
  | NotDecidable;

/** A decision recorded (the approval as decided), or why the approval could not be decided. */
export type DecisionResult = { readonly ok: true; readonly record: ApprovalRecord } | NotDecidable;

/** Who decides when no name is given: `person:$USER` (`person:owner` without one). */
export function personName(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return `person:${env.USER || 'owner'}`;
}

/** Whether approval `id` may be decided at `now`: pending, with time left. */
export async function decidable(
  store: Pick<Store, 'getApproval'>,
  id: string,
  now = new Date(),
): Promise<Decidable> {
  const record = await store.getApproval(id);
  if (record === undefined) return { ok: false, code: 'not_found', id };
  const status = statusAt(record, now);
  if (status !== 'pending') return { ok: false, code: 'not_pending', id, status, record };
  return { ok: true, record, msLeft: msLeft(record, now) };
}

/**
 * Approves or denies approval `id` as `decider` says. An approved call may then run once, within
 * `decider.ttlMs`. An id that is unknown or no longer pending is answered as data.
 */
export async function decide(
  store: DecisionRows,
  id: string,
  decision: 'approved' | 'denied',
  decider: Decider,
): Promise<DecisionResult> {
  const { by, via, assertion, ttlMs = APPROVAL_TTL_MS } = decider;
  try {
    return {
      ok: true,
      record: await store.decideApproval(id, decision, by, ttlMs, new Date(), via, assertion),
    };
  } catch (error) {
    if (!(error instanceof StoreError && error.code === StoreErrorCode.approval_not_found)) throw error;
  }
  // The store refused it in the decision's transaction: read why.
  const now = await decidable(store, id);
  return now.ok ? { ok: false, code: 'not_pending', id, status: now.record.status, record: now.record } : now;
}

/**
 * What a person reads of an approval that cannot be decided. With `where` (a command line's answer),
 * it names the instance and `listCommand`, the command that lists the pending ids as the person
 * would type it; without, `loom approvals list`.
 */
export function notDecidableText(
  refusal: NotDecidable,
  where?: { readonly instanceDir: string; readonly listCommand: string },
): string {
  if (where === undefined) {
    return refusal.code === 'not_found'
      ? `no approval has the id ${refusal.id}; see \`loom approvals list\``
      : `approval ${refusal.id} is ${refusal.status}, not pending; only a pending approval can be decided (see \`loom approvals list\`)`;
  }
  return refusal.code === 'not_found'
    ? `no approval has the id ${refusal.id} on the instance ${where.instanceDir}; the pending ones are listed by \`${where.listCommand}\``
    : `approval ${refusal.id} is ${refusal.status}, not pending; only a pending approval can be decided (the pending ones are listed by \`${where.listCommand}\`)`;
}
