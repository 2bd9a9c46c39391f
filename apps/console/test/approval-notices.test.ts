// The delivery log of an approval's announcements over real HTTP (docs/notify.md): the rows a
// broker's notifier wrote to the instance's real store, as `GET /api/approvals/:id/notices` answers them.
import type { ApprovalRecord } from '@harness/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import { type ApiClient, apiClient } from './helpers/api';
import { makeInstance, type TestInstance } from './helpers/instance';

describe('GET /api/approvals/:id/notices', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let api: ApiClient;
  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    api = await apiClient(running);
  });
  afterAll(async () => {
    await running?.close();
    t?.cleanup();
  });

  const ask = (key: string): Promise<ApprovalRecord> =>
    running.ctx.store.requestApproval({
      ...{ key, command: 'notes.append', agent: 'tester', run: 'run-1', tier: 'strict' },
      ...{ action: 'command:call:notes.append', reason: 'strict tier', argNames: ['line'] },
      ...{ args: { line: 'a line' }, argv: ['tee', '-a', 'data/notes.txt'], ttlMs: 600_000 },
    });

  it('answers each target and event with its delivery state, oldest first', async () => {
    const approval = await ask('notices-1');
    const store = running.ctx.store;
    const key = (target: string) => ({ approval: approval.id, target, event: 'approval.pending' as const });
    await store.claimNotice(key('ops'));
    await store.recordNotice({
      ...key('ops'),
      status: 'delivered',
      attempts: 1,
      httpStatus: 200,
      error: null,
    });
    await store.claimNotice(key('phone'));
    await store.recordNotice({
      ...key('phone'),
      status: 'failed',
      attempts: 4,
      httpStatus: null,
      error: 'timeout after 5s',
    });

    const r = await api.get(`/approvals/${approval.id}/notices`);
    expect(r.status).toBe(200);
    const notices = r.body.notices as Record<string, unknown>[];
    expect(notices.map((n) => [n.target, n.event, n.status, n.attempts, n.http_status, n.error])).toEqual([
      ['ops', 'approval.pending', 'delivered', 1, 200, null],
      ['phone', 'approval.pending', 'failed', 4, null, 'timeout after 5s'],
    ]);
  });

  it('answers an approval nobody was told of with no notices, and an unknown id with 404', async () => {
    const quiet = await ask('notices-2');
    expect((await api.get(`/approvals/${quiet.id}/notices`)).body).toEqual({ notices: [] });
    const missing = await api.get('/approvals/apr-none/notices');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'not_found', message: 'no approval has this id' });
  });
});
