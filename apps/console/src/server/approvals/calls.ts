// The recent calls of the run an approval belongs to, for the one-approval page: the agent's audit
// events of that run, newest first, read through the store's paged query (filtered by the agent's
// actor; the store has no run filter, so the run is matched here, over a bounded number of pages).
import type { ApprovalRecord, Store } from '@harness/store';
import type { ApprovalCallsAnswer } from '../../answers';

/** The most calls the page shows. */
export const RECENT_CALLS = 10;
/** The agent's events read per page, and the pages read at most: 2 000 events, newest first. */
const PAGE = 500;
const MAX_PAGES = 4;

/**
 * The newest {@link RECENT_CALLS} events of the approval's run, newest first. A `start` event is
 * left out: the call's own `run` (or `reap`) event follows it and says how it ended. `complete` is
 * false when the search stopped at its bound before the agent's first event.
 */
export async function recentCalls(
  store: Store,
  approval: Pick<ApprovalRecord, 'agent' | 'run'>,
): Promise<ApprovalCallsAnswer> {
  const calls: ApprovalCallsAnswer['calls'] = [];
  let before: number | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const page = await store.queryAudit({
      actor: `agent:${approval.agent}`,
      limit: PAGE,
      ...(before === undefined ? {} : { before }),
    });
    for (const event of page.events.reverse()) {
      if (event.run !== approval.run || event.phase === 'start') continue;
      calls.push(event);
      if (calls.length === RECENT_CALLS) return { run: approval.run, calls, complete: true };
    }
    if (page.older === null) return { run: approval.run, calls, complete: true };
    before = page.older;
  }
  return { run: approval.run, calls, complete: false };
}
