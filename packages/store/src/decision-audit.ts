// The audit event of a person's decision on an approval. Both stores write it in the decision's own
// transaction, so a decision is never without its row, nor a row without its decision
// (docs/host.md, "Audit").
import type { ApprovalRecord, AuditEventInput } from './types';

/** The audit event of `record`, just decided by `by`: the person as actor, the command they decided on. */
export function decisionEvent(record: ApprovalRecord, by: string): AuditEventInput {
  return {
    run: record.run,
    actor: by,
    job: null,
    command: record.command,
    action: 'approval:decide',
    phase: 'approval',
    outcome: record.status,
    code: 'ok',
    reason: null,
    // Names only, as every audit row: the values are the approval's, for whoever may read it.
    payload: {
      approvalId: record.id,
      agent: record.agent,
      arg_names: record.arg_names,
      tier: record.tier,
      expires_at: record.expires_at,
      ...(record.decided_via === null ? {} : { via: record.decided_via }),
    },
  };
}
