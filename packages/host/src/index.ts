// The public API of @harness/host. The wire protocol and its socket client are `@harness/protocol`.

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
export type { BrokerServer } from './broker';
export { HostError, HostErrorCode } from './errors';
export type { FollowOptions } from './follow';
export { followApprovals, followAudit } from './follow';
export { APPROVAL_TTL_MS } from './host';
export type { InstanceInfo, InstanceServes } from './instance';
export { checkServes, initInstance, openStore, readInstance } from './instance';
export type { ResolvedScope, ScopeFile } from './scope';
export { describeStoreTarget, migrateStoreTarget, openStoreTarget } from './store/open';
export { DEFAULT_PG_SCHEMA, postgresTargetFromEnv } from './store/postgres/target';
export type {
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStatus,
  AuditEvent,
  AuditEventInput,
  AuditPage,
  AuditQuery,
  ComponentInput,
  ComponentView,
  ComposeInput,
  ComposeOutcome,
  LoomSummary,
  LoomView,
  PostgresTarget,
  PruneResult,
  Receipt,
  SqliteTarget,
  Store,
  StoreFactory,
  StoreTarget,
} from './store/types';
export { AUDIT_PAGE_MAX, STAGE_CAPACITY } from './store/types';
