// One page of the audit, newest first, filtered by agent, command, status (outcome) and time, read
// through the store's paged query (the one `loom audit tail` uses).
import type { AuditEvent, AuditQuery, Store } from '@harness/store';

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

/** An agent filter names the agent (`demo`) or the actor (`agent:demo`, `person:ann`). */
function actorOf(agent: string): string {
  return agent.includes(':') ? agent : `agent:${agent}`;
}

/** A page of events, newest first, and the `before` of the next (older) page, `null` at the end. */
export async function auditPage(
  store: Store,
  filter: AuditFilter,
): Promise<{ events: AuditEvent[]; next: number | null }> {
  const query: AuditQuery = { limit: filter.limit };
  if (filter.agent !== undefined) query.actor = actorOf(filter.agent);
  if (filter.command !== undefined) query.command = filter.command;
  if (filter.status !== undefined) query.outcome = filter.status;
  if (filter.from !== undefined) query.since = filter.from;
  if (filter.to !== undefined) query.until = filter.to;
  if (filter.before !== undefined) query.before = filter.before;
  const page = await store.queryAudit(query);
  return { events: page.events.reverse(), next: page.older };
}

/** One event by its seq; `undefined` when there is none. */
export async function auditEvent(store: Store, seq: number): Promise<AuditEvent | undefined> {
  const page = await store.queryAudit({ after: seq - 1, limit: 1 });
  const event = page.events[0];
  return event?.seq === seq ? event : undefined;
}
