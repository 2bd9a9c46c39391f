// The audit log records the listing a run depends on without a row per call: a revalidation that
// finds the listing unchanged writes nothing, and every run row carries the listing's etag.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshInstance, hostFor } from './helpers';

let env: Awaited<ReturnType<typeof freshInstance>>;
beforeEach(async () => {
  env = await freshInstance();
});
afterEach(() => env.cleanup());

describe('the listing a run depends on', () => {
  it('50 calls that each revalidate the listing first write 1 listing row, not 50', async () => {
    const { host, store } = await hostFor(env.instance, { run: 'run-1', agent: 'reader' });
    try {
      // What the harness does before each call: ask with the etag it holds ('' at first).
      let held = '';
      for (let i = 0; i < 50; i++) {
        const listed = await host.list({ ifNoneMatch: held });
        if ('etag' in listed && listed.etag !== undefined) held = listed.etag;
        await host.run({ op: 'run', command: 'text.echo', args: { message: `m${i}` } });
      }
      const rows = (await store.queryAudit({ limit: 1000 })).events;
      const count = (phase: string) => rows.filter((e) => e.phase === phase).length;
      // Each pack run also has its durable start row; no call has a listing row of its own.
      expect([count('list'), count('start'), count('run'), rows.length]).toEqual([1, 50, 50, 101]);
      expect(
        rows.filter((e) => e.phase === 'list').map((e) => [e.seq, e.outcome, e.payload.listing]),
      ).toEqual([[1, 'listed', held]]);
      const runs = rows.filter((e) => e.phase === 'run');
      expect(runs.length).toBe(50);
      expect(new Set(runs.map((e) => e.payload.listing))).toEqual(new Set([held]));
    } finally {
      await store.close();
    }
  });

  it('still records a listing asked without an etag, and a refused one', async () => {
    const { host, store } = await hostFor(env.instance, { run: 'run-1', agent: 'reader', job: 'job-1' });
    try {
      await host.list({ jobId: 'job-1' });
      await host.list({ jobId: 'job-2' });
      const rows = (await store.queryAudit({})).events.map((e) => [e.phase, e.outcome, e.code]);
      expect(rows).toEqual([
        ['list', 'listed', 'ok'],
        ['list', 'refused', 'forbidden'],
      ]);
    } finally {
      await store.close();
    }
  });
});
