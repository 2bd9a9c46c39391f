// How long an approval lives (docs/host.md, "Approvals"): a request lives its command's
// `approval_timeout` (unless the host says otherwise), a decision restarts the clock at
// APPROVAL_TTL_MS, and a live approval whose time is up counts as expired — deny by default. The
// stores write `expired` when they next touch the row; these read a row as it is at a moment.
import { DEFAULT_APPROVAL_TIMEOUT_MS, getCommand } from '@harness/packs';
import type { ApprovalRecord, ApprovalStatus } from '@harness/store';
import type { Workspace } from '@harness/workspace';

/**
 * How long an approved call may still run once (docs/host.md, "Approvals"): one hour. A pending
 * request lives its command's `approval_timeout` (default 15 minutes), unless the host's
 * `approvalTtlMs` says otherwise.
 */
export const APPROVAL_TTL_MS = 60 * 60 * 1000;

/**
 * How long a new request for command `commandId` lives, in ms: the host's lifetime when it sets one,
 * else the command's `approval_timeout`, else {@link DEFAULT_APPROVAL_TIMEOUT_MS}.
 */
export function requestLifetimeMs(
  workspace: Workspace,
  commandId: string,
  hostTtlMs: number | undefined,
): number {
  return hostTtlMs ?? getCommand(workspace, commandId)?.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
}

/** The ms left before `record` expires, at `now` (0 or less: its time is up). */
export function msLeft(record: Pick<ApprovalRecord, 'expires_at'>, now: Date): number {
  return Date.parse(record.expires_at) - now.getTime();
}

/**
 * The status of `record` at `now`: a live one (pending, approved, denied) whose time is up is
 * `expired`, as the store records it the next time it touches the row.
 */
export function statusAt(record: Pick<ApprovalRecord, 'status' | 'expires_at'>, now: Date): ApprovalStatus {
  const live = record.status === 'pending' || record.status === 'approved' || record.status === 'denied';
  return live && !(msLeft(record, now) > 0) ? 'expired' : record.status;
}
