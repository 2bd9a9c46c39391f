// `@harness/host/operator`: what the commands a person runs on an instance share (`loom approvals`,
// `loom audit`, `harness approvals`, `harness workspace`): how approvals and audit events read in a
// terminal, a person's decision on one approval, with the answer to an id that cannot be decided
// (both the approvals module's, ./approvals/), and the review, acceptance and rejection of a
// workspace edit held for a person.

export type { PersonDecision } from './approvals';
export {
  approvalBlock,
  approvalLine,
  approvalsListing,
  decideAsPerson,
  decisionText,
  personName,
} from './approvals';
export { ageText, auditLine, SHOWN_CHARS, shownArgs, shownArgv, shownValue } from './show';
export type { ReviewDiff, WorkspaceDecision, WorkspaceReview } from './workspace-acceptance';
export { acceptWorkspace, rejectWorkspace, reviewWorkspace } from './workspace-acceptance';
export type { AuthorityChange, AuthorityDiff } from './workspace-authority';
