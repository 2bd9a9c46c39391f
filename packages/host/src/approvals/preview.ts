// What a person is shown of an approval: what a new request records for them (the call's values
// and argv, credentials replaced, and the hash of the plan it would run), and how a recorded
// approval reads in a terminal (`harness approvals`, `loom approvals`). Values come from an agent:
// they go through ../show.ts, which quotes, escapes and cuts them.
import type { ApprovalPlan, ApprovalRecord } from '@harness/store';
import { canonicalJson, sha256 } from '../canonical';
import { ageText, shownArgs, shownArgv, shownLine } from '../show';

/** What a new approval request shows a person: the call's values and argv, credentials replaced. */
export interface ApprovalPreview {
  args: Record<string, unknown>;
  /** The command's display line with the call's values; `null`: it declares none. */
  display: string | null;
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

/** Lines of a preview's output an approval shows in a listing; `harness approvals show` shows them all. */
export const LISTED_PREVIEW_LINES = 10;

/** How an approval reads: in a listing (`list`), or whole (`full`: the argv beside the display line, every preview line). */
export type BlockDetail = 'list' | 'full';

/**
 * An approval in a few lines: who asks what and until when; the command's display line where it
 * declares one (`runs`), the values, and the argv (in a listing only when there is no display line:
 * `detail: 'full'` shows it always); the first 12 hex digits of the plan it approves, where it has
 * one (docs/host.md); the project files the command runs as code and their hashes, where it declares
 * some; and what its preview showed, indented. With `now` (a listing), the first line says how long
 * ago the call asked (`asked 3m ago`).
 */
export function approvalBlock(a: ApprovalRecord, now?: Date, detail: BlockDetail = 'full'): string {
  const asked = now === undefined ? '' : `  asked ${ageText(a.created_at, now)} ago`;
  const display = a.display ?? null;
  return (
    `${a.id}  ${a.status}  ${a.command}  tier ${a.tier ?? '?'}  agent ${a.agent}  run ${a.run}${asked}  ${until(a)}\n` +
    (display === null ? '' : `  runs  ${shownLine(display)}\n`) +
    `  args  ${argsOf(a)}\n` +
    (display === null || detail === 'full' ? `  argv  ${argvOf(a)}\n` : '') +
    (a.plan_hash === null ? '' : `  plan  ${a.plan_hash.slice(0, 12)}\n`) +
    filesLine(a) +
    previewLines(a, detail)
  );
}

/**
 * What the command's preview showed, under a line naming the read command: each output line
 * indented with `| ` and its hidden characters escaped (at most {@link LISTED_PREVIEW_LINES} in a
 * listing), or the line saying why there is none.
 */
function previewLines(a: ApprovalRecord, detail: BlockDetail): string {
  const p = a.preview ?? null;
  if (p === null) return '';
  if (!p.ok) return `  preview ${p.command}: ${shownLine(p.text)}\n`;
  const lines = p.text === '' ? [] : p.text.split('\n');
  const shown = detail === 'full' ? lines : lines.slice(0, LISTED_PREVIEW_LINES);
  const more =
    shown.length < lines.length
      ? `    …(+${lines.length - shown.length} lines: harness approvals show ${a.id})\n`
      : p.truncated
        ? '    …(cut at 40 lines / 4 KiB)\n'
        : '';
  const head = `  preview ${p.command}${lines.length === 0 ? ': (no output)' : ''}\n`;
  return head + shown.map((l) => (l === '' ? '    |\n' : `    | ${shownLine(l)}\n`)).join('') + more;
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
  return list.map((a) => approvalBlock(a, now, 'list')).join('');
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
  const runs = a.display == null ? `argv: ${argvOf(a)}` : `runs: ${shownLine(a.display)}`;
  return `${a.id}  ${a.command}  ${argsOf(a)}  ${runs}  tier ${a.tier ?? '?'}  agent ${a.agent}  run ${a.run}  ${until(a)}\n`;
}
