// Approvals (docs/host.md, "Approvals"): holding a call for a person (./request.ts, taking an
// approval for it once, ./consume.ts), a person's decision (./decide.ts), the wait of a held call
// for it (./wait.ts), what the person is shown (./preview.ts) and how long each lives
// (./expiry.ts); ./api.ts is what the CLI, the console, loom and elicitation call.
export type { ApprovalRows, Approvals, PersonDecision } from './api';
export { approvalsOf, decideAsPerson, withApprovals } from './api';
export type { Taken } from './consume';
export { takeApproval } from './consume';
export type { Decidable, Decider, DecisionResult, DecisionRows, NotDecidable } from './decide';
export { decidable, decide, notDecidableText, personName } from './decide';
export { APPROVAL_TTL_MS, msLeft, requestLifetimeMs, statusAt } from './expiry';
export type { ApprovalPreview } from './preview';
export { approvalBlock, approvalLine, approvalsListing, decisionText, planHash } from './preview';
export { decideWithApprovals } from './request';
export type { WaitContext, WaitEnd, WaitOutcome } from './wait';
export { APPROVAL_POLL_MS, waitForPerson } from './wait';
