// One page of the audit, newest first, filtered by agent, command, status (outcome) and time.
import type { AuditEvent, Store } from '@harness/host';

/** What the page asks for. Every field is optional; `before` is a seq (exclusive) for paging. */
export interface AuditFilter {
  agent?: string;
  command?: string;
  status?: string;
  from?: string;
  to?: string;
  before?: number;
  limit: number;
}

/** The largest page the API gives. */
export const MAX_PAGE = 500;

/** How far back the interim reader looks (until the store's paged query serves it). */
const WINDOW = 5_000;

/** A page of events, newest first, and the `before` of the next page (`null` at the end). */
export async function auditPage(
  store: Store,
  filter: AuditFilter,
): Promise<{ events: AuditEvent[]; next: number | null }> {
  const all = await store.tailAudit(WINDOW);
  const matching = all
    .filter(
      (e) =>
        (filter.before === undefined || e.seq < filter.before) &&
        (filter.agent === undefined || e.actor === filter.agent || e.actor === `agent:${filter.agent}`) &&
        (filter.command === undefined || e.command === filter.command) &&
        (filter.status === undefined || e.outcome === filter.status) &&
        (filter.from === undefined || e.at >= filter.from) &&
        (filter.to === undefined || e.at <= filter.to),
    )
    .reverse();
  const events = matching.slice(0, filter.limit);
  const next = matching.length > filter.limit ? (events.at(-1)?.seq ?? null) : null;
  return { events, next };
}
