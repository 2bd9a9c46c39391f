// The records a store keeps, as a host's API and a console's HTTP answers give them: types and two
// constants only, importing nothing, so a page running in a browser can type what it reads with
// the store's own definitions (`import type { ApprovalRecord } from '@harness/store/records'`).
export type {
  ApprovalNotice,
  ApprovalRecord,
  ApprovalStatus,
  AuditEvent,
  AuditPage,
  ComponentView,
  LoomSummary,
  LoomView,
  Receipt,
} from './types';
export { AUDIT_PAGE_MAX, STAGE_CAPACITY } from './types';
