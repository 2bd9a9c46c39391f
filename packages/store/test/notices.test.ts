// The delivery log of approval announcements (docs/notify.md, "The delivery log"), on both stores:
// a claim is won once per (approval, target, event), even by claimers racing on one store or on
// two handles of it, and each attempt's state is what a listing reads back.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NoticeEvent, Store } from '../src/types';
import { describeStores } from './stores';

describeStores('approval notices', (kind) => {
  let store: Store;
  let other: Store;
  // Approval ids of their own: the PostgreSQL schema is shared by this file's tests.
  let approval: string;
  beforeEach(async () => {
    store = await kind.open();
    other = await kind.open();
    approval = `apr-${randomUUID()}`;
  });
  afterEach(async () => {
    await store.close();
    await other.close();
  });

  const key = (target: string, event: NoticeEvent = 'approval.pending') => ({ approval, target, event });

  it('lets one claimer win an announcement when several race on two handles of one store', async () => {
    const claims = await Promise.all([
      store.claimNotice(key('ops')),
      other.claimNotice(key('ops')),
      store.claimNotice(key('ops')),
      other.claimNotice(key('ops')),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.claimNotice(key('ops', 'approval.approved'))).toBe(true);
    expect(await other.claimNotice(key('phone'))).toBe(true);
    const rows = await store.listNotices(approval);
    expect(rows.map((r) => [r.target, r.event, r.status, r.attempts])).toEqual([
      ['ops', 'approval.pending', 'sending', 0],
      ['ops', 'approval.approved', 'sending', 0],
      ['phone', 'approval.pending', 'sending', 0],
    ]);
  });

  it('records each attempt and lists the delivery log oldest first', async () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    await store.claimNotice({ ...key('ops'), now: at });
    await store.recordNotice({
      ...key('ops'),
      status: 'sending',
      attempts: 1,
      httpStatus: 500,
      error: 'HTTP 500',
    });
    await store.claimNotice(key('phone'));
    await store.recordNotice({
      ...key('phone'),
      status: 'failed',
      attempts: 4,
      httpStatus: null,
      error: 'timeout after 5s',
    });
    const later = new Date('2026-01-02T03:04:09.000Z');
    await store.recordNotice({
      ...key('ops'),
      status: 'delivered',
      attempts: 2,
      httpStatus: 204,
      error: null,
      now: later,
    });
    const [ops, phone] = await other.listNotices(approval);
    expect(ops).toEqual({
      id: expect.any(Number),
      approval,
      target: 'ops',
      event: 'approval.pending',
      status: 'delivered',
      attempts: 2,
      http_status: 204,
      error: null,
      created_at: at.toISOString(),
      updated_at: later.toISOString(),
    });
    expect(phone).toMatchObject({
      status: 'failed',
      attempts: 4,
      http_status: null,
      error: 'timeout after 5s',
    });
    expect(await store.listNotices('apr-none')).toEqual([]);
  });

  it('prunes the delivery log of a spent approval with it, and keeps that of one still pending', async () => {
    const past = new Date('2020-01-01T00:00:00Z');
    const request = (key: string, now: Date) =>
      store.requestApproval({
        key,
        command: 'p.c',
        agent: 'a',
        run: 'r',
        action: 'command:call:p:c',
        reason: 'strict',
        argNames: [],
        args: {},
        argv: null,
        tier: 'strict',
        ttlMs: 60_000,
        now,
      });
    const spent = await request(`spent-${approval}`, past);
    await store.decideApproval(spent.id, 'denied', 'person:ann', 60_000, past);
    const pending = await request(`pending-${approval}`, new Date());
    for (const id of [spent.id, pending.id])
      await store.claimNotice({ approval: id, target: 'ops', event: 'approval.pending' });
    await store.prune(new Date('2021-01-01T00:00:00Z'));
    expect(await store.listNotices(spent.id)).toEqual([]);
    expect((await store.listNotices(pending.id)).map((r) => r.target)).toEqual(['ops']);
  });
});
