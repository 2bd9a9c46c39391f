// The public API of @harness/store: the store every part of a Loom host reads and writes through,
// opened from a target (an SQLite file, or a PostgreSQL schema several hosts share). The record
// types alone, importing nothing, are `@harness/store/records`.

export type { AuditComparison } from './audit-against';
export { compareAuditWithExport } from './audit-against';
export {
  AUDIT_CHAIN_ENV,
  auditChainOn,
  canonicalJson,
  checkpointText,
  eventHash,
  eventText,
  GENESIS,
} from './audit-chain';
export {
  AUDIT_EXPORT_FORMAT,
  auditExportLines,
  exportAudit,
  verifyAuditExport,
  verifyAuditStore,
} from './audit-export';
export type { AuditKeyEnv, AuditKeyRecording, RecordedAuditKey } from './audit-key';
export {
  AUDIT_KEY_FILE,
  auditKeyRecordFile,
  chainOf,
  ensureAuditKey,
  instanceAuditSigner,
  normalizePublicKey,
  publicKeysIn,
  readAuditSigner,
  readRecordedAuditKey,
  recordAuditKey,
  recordNewInstanceKey,
} from './audit-key';
export type {
  AuditChainReport,
  AuditProblem,
  AuditProblemKind,
  AuditVerification,
} from './audit-verify';
export type { AssertionCheck } from './decision-audit';
export {
  DECISION_CHALLENGE_CONTEXT,
  decisionChallenge,
  TOOL_DECISION_CHALLENGE_CONTEXT,
  toolDecisionChallenge,
  verifyDecisionAssertion,
  verifyToolDecisionAssertion,
} from './decision-audit';
export { StoreError, StoreErrorCode } from './errors';
export { newId } from './ids';
export {
  describeStoreTarget,
  embeddedStoreTarget,
  migrateStoreTarget,
  openStoreTarget,
  STORE_FILE,
} from './open';
export { DEFAULT_PG_SCHEMA, postgresTargetFromEnv, readPostgresRecord } from './postgres/target';
export type {
  ApprovalNotice,
  ApprovalPlan,
  ApprovalPreviewOutput,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStatus,
  AuditCheckpoint,
  AuditCheckpointKind,
  AuditEvent,
  AuditEventInput,
  AuditPage,
  AuditQuery,
  AuditSigner,
  ChainedAuditEvent,
  ComponentInput,
  ComponentView,
  ComposeInput,
  ComposeOutcome,
  DecisionAssertion,
  DecisionVia,
  LoomSummary,
  LoomView,
  NoticeEvent,
  NoticeStatus,
  NoticeUpdate,
  PostgresTarget,
  PruneResult,
  Receipt,
  SqliteTarget,
  Store,
  StoreFactory,
  StoreOpenOptions,
  StoreTarget,
  ToolDecision,
  ToolPin,
  ToolSighting,
} from './types';
export { AUDIT_PAGE_MAX, STAGE_CAPACITY } from './types';
