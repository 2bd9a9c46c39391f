// Following an instance's store as it changes: new pending approvals, new audit events. The store
// has no change feed (SQLite in a file, several writers), so each follower polls one open store.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApprovalRecord, AuditEvent, AuditQuery } from '@harness/store';
import { openStore } from './instance';

/** Options of {@link followApprovals} and {@link followAudit}. */
export interface FollowOptions {
  /** Ends the follow: the iterator returns, the store is closed. */
  signal?: AbortSignal;
  /** How often the store is read; default 500 ms. */
  intervalMs?: number;
}

const DEFAULT_INTERVAL_MS = 500;

/** Waits one interval; false once the signal aborted. */
async function tick(options: FollowOptions): Promise<boolean> {
  if (options.signal?.aborted) return false;
  try {
    await sleep(options.intervalMs ?? DEFAULT_INTERVAL_MS, undefined, {
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Yields each pending approval of an instance once, oldest first: those pending when it starts,
 * then each new one as it is recorded. Returns when `signal` aborts.
 */
export async function* followApprovals(
  instanceDir: string,
  options: FollowOptions = {},
): AsyncGenerator<ApprovalRecord> {
  const store = await openStore(instanceDir);
  try {
    // Ids leave `pending` for good, so the ids pending at the last read are all there is to remember.
    let seen = new Set<string>();
    do {
      const pending = (await store.listApprovals()).reverse();
      for (const a of pending) if (!seen.has(a.id)) yield a;
      seen = new Set(pending.map((a) => a.id));
    } while (await tick(options));
  } finally {
    await store.close();
  }
}

/**
 * Yields an instance's audit events that match `query` (its filters; cursors and limit are the
 * follower's): first the newest `limit` (default 20) before now, or those after `query.after`,
 * then each new one as it is written, in `seq` order. Returns when `signal` aborts.
 */
export async function* followAudit(
  instanceDir: string,
  query: AuditQuery = {},
  options: FollowOptions = {},
): AsyncGenerator<AuditEvent> {
  const { after, before: _before, limit, ...filters } = query;
  const store = await openStore(instanceDir);
  try {
    let cursor = after;
    if (cursor === undefined) {
      const first = await store.queryAudit({ ...filters, limit: limit ?? 20 });
      for (const e of first.events) yield e;
      cursor = first.events.at(-1)?.seq ?? 0;
    }
    while (!options.signal?.aborted) {
      const page = await store.queryAudit({ ...filters, after: cursor, limit: 1000 });
      for (const e of page.events) yield e;
      cursor = page.events.at(-1)?.seq ?? cursor;
      // A full page means more are waiting: read on without sleeping.
      if (page.newer === null && !(await tick(options))) return;
    }
  } finally {
    await store.close();
  }
}
