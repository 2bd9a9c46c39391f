// The public API of @harness/host. The wire protocol and its socket client are `@harness/protocol`.

export type { BrokerCheck, DirectOptions, RunningBroker, StartBrokerOptions } from './api';
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
export type { BrokerOptions, BrokerServer } from './broker';
export { serveBroker } from './broker';
export type { BuiltinId } from './builtins';
export { BUILTIN_IDS, BUILTIN_ROWS, MAX_COMPONENTS, MAX_CONTEXT_RECEIPTS } from './builtins';
export { HostError, HostErrorCode } from './errors';
export type { FollowOptions } from './follow';
export { followApprovals, followAudit } from './follow';
export type {
  CommandHost,
  CommandHostOptions,
  PackBackend,
  PackCallContext,
  PackOutcome,
  Transport,
} from './host';
export { APPROVAL_TTL_MS, createCommandHost } from './host';
export type { InstanceInfo, InstanceServes } from './instance';
export { checkServes, INSTANCE_FILE, initInstance, openStore, readInstance, STORE_FILE } from './instance';
export { CREDENTIALS_FILE, loadPackBackend } from './packs-backend';
export type { ResolvedScope, ScopeFile, ScopeWorkspace } from './scope';
export { parseScope, readScopeFile, resolveScope } from './scope';
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
