// The records the host keeps, as its API and a console's HTTP answers give them: types and two
// constants only, importing nothing, so a page running in a browser can type what it reads with
// the host's own definitions (`import type { ApprovalRecord } from '@harness/host/records'`).
export type {
  ApprovalRecord,
  ApprovalStatus,
  AuditEvent,
  AuditPage,
  ComponentView,
  LoomSummary,
  LoomView,
  Receipt,
} from './store/types';
export { AUDIT_PAGE_MAX, STAGE_CAPACITY } from './store/types';
