// `@harness/host/operator`: what the commands a person runs on an instance share (`loom approvals`,
// `loom audit`, `harness approvals`, `harness workspace`): how approvals and audit events read in a
// terminal, a person's decision on one approval, with the answer to an id that cannot be decided,
// and the review, acceptance and rejection of a workspace edit held for a person.

import { StoreError, StoreErrorCode } from '@harness/store';
import type { ApprovalRecord } from '@harness/store/records';
import { decideApproval, getApproval } from './api';

export {
  ageText,
  approvalBlock,
  approvalLine,
  auditLine,
  decisionText,
  SHOWN_CHARS,
  shownArgs,
  shownArgv,
  shownValue,
} from './show';
export type { ReviewDiff, WorkspaceDecision, WorkspaceReview } from './workspace-acceptance';
export { acceptWorkspace, rejectWorkspace, reviewWorkspace } from './workspace-acceptance';
export type { AuthorityChange, AuthorityDiff } from './workspace-authority';

/** Who decides when `--by` is not given: `person:$USER` (`person:owner` without one). */
export function personName(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return `person:${env.USER || 'owner'}`;
}

/** A person's decision on one approval: the record decided, or why this id cannot be decided. */
export type PersonDecision = { ok: true; record: ApprovalRecord } | { ok: false; message: string };

/**
 * Approves or denies approval `id` of the instance as `by`. An id that is unknown or no longer
 * pending is data: a message naming the id, what it is, and `listCommand` (the command line, as the
 * person would type it, that lists the ids: `harness approvals list`, with `--instance` when needed).
 */
export async function decideAsPerson(
  instanceDir: string,
  id: string,
  decision: 'approved' | 'denied',
  by: string,
  listCommand: string,
): Promise<PersonDecision> {
  try {
    return { ok: true, record: await decideApproval(instanceDir, id, decision, by, undefined, 'cli') };
  } catch (error) {
    if (!(error instanceof StoreError && error.code === StoreErrorCode.approval_not_found)) throw error;
  }
  const found = await getApproval(instanceDir, id);
  return {
    ok: false,
    message:
      found === undefined
        ? `no approval has the id ${id} on the instance ${instanceDir}; the pending ones are listed by \`${listCommand}\``
        : `approval ${id} is ${found.status}, not pending; only a pending approval can be decided (the pending ones are listed by \`${listCommand}\`)`,
  };
}
