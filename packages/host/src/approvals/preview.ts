// What a person is shown of an approval: what a new request records for them (the call's values
// and argv, credentials replaced, and the hash of the plan it would run), and how a recorded
// approval reads in a terminal (`harness approvals`, `loom approvals`). Values come from an agent:
// they go through ../show.ts, which quotes, escapes and cuts them.
import type { ApprovalPlan, ApprovalRecord } from '@harness/store';
import { canonicalJson, sha256 } from '../canonical';
import { ageText, shownArgs, shownArgv } from '../show';

/** What a new approval request shows a person: the call's values and argv, credentials replaced. */
export interface ApprovalPreview {
  args: Record<string, unknown>;
  argv: string[] | null;
  /** SHA-256 of the call's plan (`CallPlan` of `@harness/packs`, canonical JSON); `null`: no plan. */
  planHash: string | null;
  /** What the plan covers beyond the argv, shown with the request (its hashes); absent: no plan. */
  plan?: ApprovalPlan;
}

/** The hash an approval binds: SHA-256 (hex) of the plan's canonical JSON. */
export const planHash = (plan: unknown): string => sha256(canonicalJson(plan));

/** What an approval's expiry means in its status. */
function until(a: ApprovalRecord): string {
  switch (a.status) {
    case 'pending':
      return `expires ${a.expires_at}`;
    case 'approved':
      return `may run once until ${a.expires_at}`;
    case 'denied':
      return `refused until ${a.expires_at}`;
    case 'consumed':
      return `used ${a.consumed_at ?? ''}`;
    case 'expired':
      return `expired ${a.expires_at}`;
  }
}

const argsOf = (a: ApprovalRecord): string =>
  a.args === null ? '(not recorded: requested before this version kept values)' : shownArgs(a.args);

const argvOf = (a: ApprovalRecord): string =>
  a.argv !== null
    ? shownArgv(a.argv)
    : a.args === null
      ? '(not recorded)'
      : '(does not render: the call would be refused before it runs)';

/**
 * An approval in three lines: who asks what and until when, then the values, then the argv; a
 * fourth with the first 12 hex digits of the plan it approves, where it has one (docs/host.md); and
 * a fifth with the project files the command runs as code and their hashes, where it declares some. With
 * `now` (a listing), the first line says how long ago the call asked (`asked 3m ago`).
 */
export function approvalBlock(a: ApprovalRecord, now?: Date): string {
  const asked = now === undefined ? '' : `  asked ${ageText(a.created_at, now)} ago`;
  return (
    `${a.id}  ${a.status}  ${a.command}  tier ${a.tier ?? '?'}  agent ${a.agent}  run ${a.run}${asked}  ${until(a)}\n` +
    `  args  ${argsOf(a)}\n` +
    `  argv  ${argvOf(a)}\n` +
    (a.plan_hash === null ? '' : `  plan  ${a.plan_hash.slice(0, 12)}\n`) +
    filesLine(a)
  );
}

/**
 * The project files the approved command runs as code (its `plan_inputs`), each with the first 12
 * hex digits of its bytes' SHA-256 or `absent`: the files whose edit makes the approval ask anew.
 */
function filesLine(a: ApprovalRecord): string {
  const inputs = a.plan?.inputs ?? [];
  if (inputs.length === 0) return '';
  const shown = inputs.map(
    (i) => `${i.path} ${/^[0-9a-f]{64}$/.test(i.sha256) ? i.sha256.slice(0, 12) : i.sha256}`,
  );
  return `  files ${shown.join(', ')}\n`;
}

/**
 * A listing as a terminal shows it: each approval's {@link approvalBlock} (saying how long ago it
 * asked), or one line saying there is none (`all`: of any status, else pending).
 */
export function approvalsListing(list: readonly ApprovalRecord[], all: boolean, now: Date): string {
  if (list.length === 0) return all ? 'no approvals\n' : 'no pending approvals\n';
  return list.map((a) => approvalBlock(a, now)).join('');
}

/** What a person reads once they decided an approval: what the decision allows, then the call. */
export function decisionText(record: ApprovalRecord): string {
  const what =
    record.status === 'approved'
      ? `${record.id} approved: the identical call may run once, until ${record.expires_at}\n`
      : `${record.id} denied: the call will not run; the agent is told a person denied it\n`;
  return what + approvalBlock(record);
}

/** A pending approval in one line, as `loom approvals watch` prints it. */
export function approvalLine(a: ApprovalRecord): string {
  return `${a.id}  ${a.command}  ${argsOf(a)}  argv: ${argvOf(a)}  tier ${a.tier ?? '?'}  agent ${a.agent}  run ${a.run}  ${until(a)}\n`;
}
