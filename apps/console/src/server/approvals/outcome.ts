// The outcome of an approved call once it ran: the audit event of the run its approval allowed.
import type { ApprovalRecord, AuditEvent, Store } from '@harness/host';

/** How far back the audit is read to find the runs of the listed approvals. */
const OUTCOME_WINDOW = 2_000;

/** What the page shows of a run an approval allowed. */
export interface ApprovalOutcome {
  seq: number;
  at: string;
  outcome: string;
  code: string;
  exitCode: number | null;
}

/** The run of each consumed approval in `list`, when its audit event is still in the window. */
export async function approvalOutcomes(
  store: Store,
  list: readonly ApprovalRecord[],
): Promise<Map<string, ApprovalOutcome>> {
  const wanted = new Set(list.filter((a) => a.status === 'consumed').map((a) => a.id));
  const found = new Map<string, ApprovalOutcome>();
  if (wanted.size === 0) return found;
  const events: AuditEvent[] = await store.tailAudit(OUTCOME_WINDOW);
  for (const e of events) {
    const id = e.payload.approvalId;
    if (e.phase !== 'run' || typeof id !== 'string' || !wanted.has(id)) continue;
    if (e.payload.decision !== 'allow') continue;
    const run = e.payload.run as { exitCode?: unknown } | undefined;
    found.set(id, {
      seq: e.seq,
      at: e.at,
      outcome: e.outcome,
      code: e.code,
      exitCode: typeof run?.exitCode === 'number' ? run.exitCode : null,
    });
  }
  return found;
}
