// The public API of @harness/host. The wire protocol and its socket client are `@harness/protocol`.

// The store is `@harness/store`; these of its names are part of what the host's own API takes and
// throws (a target in `initInstance`, the StoreError of every store failure), so an embedder of
// the host needs no second import for them.
export {
  AUDIT_CHAIN_ENV,
  describeStoreTarget,
  postgresTargetFromEnv,
  StoreError,
  StoreErrorCode,
} from '@harness/store';
export type {
  BrokerCheck,
  BrokerStartSettings,
  DirectOptions,
  RunningBroker,
  StartBrokerOptions,
} from './api';
export {
  checkBroker,
  decideApproval,
  getApproval,
  listApprovals,
  listDirect,
  pruneStore,
  queryAudit,
  runDirect,
  startBroker,
  tailAudit,
} from './api';
export type {
  ApprovalRows,
  Approvals,
  Decidable,
  Decider,
  DecisionResult,
  NotDecidable,
} from './approvals';
export { APPROVAL_TTL_MS, approvalsOf, notDecidableText, withApprovals } from './approvals';
export type { BrokerServer } from './broker';
export { HostError, HostErrorCode } from './errors';
export type { FollowOptions } from './follow';
export { followApprovals, followAudit } from './follow';
export type { InstanceInfo, InstanceServes } from './instance';
export { checkServes, initInstance, openStore, readInstance } from './instance';
export type { ResolvedScope, ScopeFile } from './scope';
export type { WorkspaceCheck, WorkspaceProblem } from './workspace-reload';
