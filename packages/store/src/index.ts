// The public API of @harness/store: the store every part of a Loom host reads and writes through,
// opened from a target (an SQLite file, or a PostgreSQL schema several hosts share). The record
// types alone, importing nothing, are `@harness/store/records`.

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
} from './types';
export { AUDIT_PAGE_MAX, STAGE_CAPACITY } from './types';
