// Taking a person's approval for the call it was given for: single use (the store consumes it in
// one transaction, so of two identical calls one takes it), and only for the plan it was given
// for — a call that would now run another plan is denied (`plan_changed`), its approval used up.

import type { ApprovalRecord, Store } from '@harness/store';
import type { Decision } from '@harness/workspace';

/**
 * What taking the approval of one call came to: none approved (`undefined`), one taken for the
 * plan the call runs, or one taken for another plan (`plan_changed`, the call's decision given).
 */
export type Taken =
  | { readonly ok: true; readonly id: string }
  | { readonly ok: false; readonly denied: Decision }
  | undefined;

/**
 * Consumes the approved approval of store key `key`, if there is one, and checks it against the
 * plan the call would run now (`planNow`, called only for an approval given for a plan). `held`
 * is the gate's decision without it, which a `plan_changed` denial keeps the rest of.
 */
export async function takeApproval(
  store: Pick<Store, 'takeApproval'>,
  key: string,
  held: Decision,
  planNow: () => string | null,
): Promise<Taken> {
  const taken = await store.takeApproval(key);
  if (taken === undefined) return undefined;
  const now = taken.plan_hash === null ? null : planNow();
  if (taken.plan_hash !== null && now !== taken.plan_hash) {
    return { ok: false, denied: planChanged(held, taken, taken.plan_hash, now) };
  }
  return { ok: true, id: taken.id };
}

/** The denial of a call whose approval `taken` was given for plan `approved`, and that would now run `now`. */
function planChanged(held: Decision, taken: ApprovalRecord, approved: string, now: string | null): Decision {
  return {
    ...held,
    outcome: 'deny',
    code: 'plan_changed',
    reason: `${held.commandId}: approval ${taken.id} was given for plan ${approved.slice(0, 12)}, and this call would now run plan ${now?.slice(0, 12) ?? '(none)'}: the command's template, its program (or the program's bytes), its environment, its sandbox, its working directory or a project file it runs as code changed since; the approval is used up, and the identical call asks a person anew`,
    approvalId: taken.id,
  };
}
