// The outcome of an approved call once it ran: the audit event of the run its approval allowed.
import { EXIT_FAILURE_WORDS, isExitFailure } from '@harness/protocol';
import type { ApprovalRecord, AuditEvent, Store } from '@harness/store';
import type { ApprovalOutcome } from '../../answers';

/** Events of one command read per page while looking for an approval's run. */
const PAGE = 200;
/**
 * Pages read per approval at most: the run is the approved command's first `run` event naming the
 * approval after it was consumed, so only calls of that command that ended while it ran come first.
 * An approval whose run left no event (its broker died) stops here rather than reading the log.
 */
const MAX_PAGES = 5;

/**
 * Outcomes already found, per store. A run's audit event never changes, so an approval's outcome,
 * once found, is remembered: the page refreshes the list on every audit event, and only approvals
 * whose run has not been found yet are looked up again. At most {@link REMEMBERED} per store, the
 * oldest forgotten first (it is then looked up again if shown).
 */
const REMEMBERED = 2000;
const remembered = new WeakMap<Store, Map<string, ApprovalOutcome>>();

/** The run of each consumed approval in `list`, found from its consumption on, however old. */
export async function approvalOutcomes(
  store: Store,
  list: readonly ApprovalRecord[],
): Promise<Map<string, ApprovalOutcome>> {
  let known = remembered.get(store);
  if (known === undefined) {
    known = new Map();
    remembered.set(store, known);
  }
  const found = new Map<string, ApprovalOutcome>();
  for (const approval of list) {
    if (approval.status !== 'consumed' || approval.consumed_at === null) continue;
    let outcome = known.get(approval.id);
    if (outcome === undefined) {
      outcome = await findRun(store, approval.id, approval.command, approval.consumed_at);
      if (outcome === undefined) continue;
      known.set(approval.id, outcome);
      if (known.size > REMEMBERED) known.delete(known.keys().next().value as string);
    }
    found.set(approval.id, outcome);
  }
  return found;
}

async function findRun(
  store: Store,
  approvalId: string,
  command: string,
  consumedAt: string,
): Promise<ApprovalOutcome | undefined> {
  let after = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { events, newer } = await store.queryAudit({ command, since: consumedAt, after, limit: PAGE });
    const run = events.find((e) => isRunOf(e, approvalId));
    if (run) return toOutcome(run);
    if (newer === null) return undefined;
    after = newer;
  }
  return undefined;
}

function isRunOf(e: AuditEvent, approvalId: string): boolean {
  return e.phase === 'run' && e.payload.approvalId === approvalId && e.payload.decision === 'allow';
}

function toOutcome(e: AuditEvent): ApprovalOutcome {
  const run = e.payload.run as { exitCode?: unknown } | undefined;
  return {
    seq: e.seq,
    at: e.at,
    outcome: e.outcome,
    code: e.code,
    reason: e.reason,
    summary: isExitFailure(e.reason) ? EXIT_FAILURE_WORDS[e.reason] : e.outcome,
    exitCode: typeof run?.exitCode === 'number' ? run.exitCode : null,
  };
}
