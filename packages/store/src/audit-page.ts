// The paging rules of `queryAudit`, shared by both stores: each runs its own statements, the
// arithmetic of limits, seq ranges and cursors is this one.
import { AUDIT_PAGE_MAX, type AuditQuery } from './types';

/** The page size a query asks for, cut to 1 … {@link AUDIT_PAGE_MAX} (default 100). */
export function auditLimit(q: AuditQuery): number {
  return Math.min(Math.max(1, Math.trunc(q.limit ?? 100)), AUDIT_PAGE_MAX);
}

/**
 * The seq range a time range covers, `[from, to)`. A store keeps `at` non-decreasing in `seq`, so
 * `at >= since` is `seq >=` the first seq at or after `since`, and `at < until` is `seq <` the first
 * seq at or after `until`: one index seek each. `first` finds that seq (undefined: none).
 */
export function timeRange(
  first: (at: string) => number | undefined,
  q: AuditQuery,
): { from: number; to: number } | undefined {
  const end = Number.MAX_SAFE_INTEGER;
  const from = q.since === undefined ? 0 : first(q.since);
  if (from === undefined) return undefined;
  const to = q.until === undefined ? end : (first(q.until) ?? end);
  return from < to ? { from, to } : undefined;
}

/** The seq range of a page: the time range narrowed by the `after` and `before` cursors. */
export function cursorRange(
  time: { from: number; to: number },
  q: AuditQuery,
): { from: number; to: number } | undefined {
  const range = {
    from: Math.max(time.from, q.after === undefined ? 0 : q.after + 1),
    to: Math.min(time.to, q.before ?? time.to),
  };
  return range.from < range.to ? range : undefined;
}

/** The exact-match filters of a query, as column and value pairs, in one fixed order. */
export function auditFilters(q: AuditQuery): [column: 'actor' | 'command' | 'outcome', value: string][] {
  const out: [column: 'actor' | 'command' | 'outcome', value: string][] = [];
  for (const [column, value] of [
    ['actor', q.actor],
    ['command', q.command],
    ['outcome', q.outcome],
  ] as const) {
    if (value !== undefined) out.push([column, value]);
  }
  return out;
}
