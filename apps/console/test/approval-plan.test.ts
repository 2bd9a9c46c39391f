// An approval whose command line cannot be shown cannot be approved; it can still be denied. Real
// HTTP against a running console, approvals recorded in the instance's real store.
import type { ApprovalRecord } from '@harness/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import { type ApiClient, apiClient } from './helpers/api';
import { makeInstance, type TestInstance } from './helpers/instance';

describe('approving an approval whose plan cannot render', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let api: ApiClient;
  let keys = 0;
  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    api = await apiClient(running);
  });
  afterAll(async () => {
    await running?.close();
    t?.cleanup();
  });

  /** A pending approval as the host records one, with the argv it recorded (`null`: not rendered). */
  const ask = (argv: string[] | null): Promise<ApprovalRecord> =>
    running.ctx.store.requestApproval({
      ...{ key: `plan-${++keys}`, command: 'notes.append', agent: 'tester', run: 'run-1', tier: 'strict' },
      ...{ action: 'command:call:notes.append', reason: 'strict tier', argNames: ['line'] },
      ...{ args: { line: 'a line' }, argv, ttlMs: 600_000 },
    });

  it('answers each approval with its plan: the recorded argv, or why it cannot be shown', async () => {
    const shown = await ask(['tee', '-a', 'data/notes.txt']);
    const hidden = await ask(null);
    const list = (await api.get('/approvals')).body.approvals as { id: string; plan: unknown }[];
    expect(list.find((a) => a.id === shown.id)?.plan).toEqual({
      ok: true,
      argv: ['tee', '-a', 'data/notes.txt'],
    });
    expect(list.find((a) => a.id === hidden.id)?.plan).toEqual({
      ok: false,
      message: expect.stringContaining('its command line was not recorded'),
    });
    expect((await api.get(`/approvals/${hidden.id}`)).body.approval).toMatchObject({ plan: { ok: false } });
  });

  it('refuses to approve a call whose command line cannot be shown, with plan_unrenderable, and leaves it pending [SEC-20]', async () => {
    const hidden = await ask(null);
    const r = await api.post(`/approvals/${hidden.id}/decision`, { decision: 'approved' });
    expect(r.status).toBe(409);
    expect(r.body.error).toEqual({
      code: 'plan_unrenderable',
      message: `approval ${hidden.id} cannot be approved: its command line was not recorded: the host could not render it when the call was made (the pack or the command is missing, or its argv template failed to render; such a call would be refused anyway), or an older release recorded the request. The console approves only a call whose exact command line it shows. Deny it to clear it; once the pack renders, the agent's call asks again.`,
    });
    const row = await running.ctx.store.getApproval(hidden.id);
    expect(row).toMatchObject({ status: 'pending', decided_at: null, decided_by: null });
    // Nothing the agent's identical call could take.
    expect(await running.ctx.store.takeApproval(hidden.key)).toBeUndefined();
  });

  it('refuses to approve a recorded command line that is empty', async () => {
    const empty = await ask([]);
    const r = await api.post(`/approvals/${empty.id}/decision`, { decision: 'approved' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({
      code: 'plan_unrenderable',
      message: expect.stringContaining('its recorded command line is empty'),
    });
    expect((await running.ctx.store.getApproval(empty.id))?.status).toBe('pending');
  });

  it('still denies a call whose command line cannot be shown, recording the denial and who decided [SEC-20]', async () => {
    const hidden = await ask(null);
    const r = await api.post(`/approvals/${hidden.id}/decision`, { decision: 'denied' });
    expect(r.status).toBe(200);
    const row = await running.ctx.store.getApproval(hidden.id);
    expect(row).toMatchObject({ status: 'denied', decided_by: running.ctx.person });
    expect(row?.decided_at).toEqual(expect.any(String));
    // Decided now: a second decision is a conflict, not a plan problem.
    const again = await api.post(`/approvals/${hidden.id}/decision`, { decision: 'approved' });
    expect(again.status).toBe(409);
    expect((again.body.error as { code: string }).code).toBe('conflict');
  });

  it('approves a call whose command line renders', async () => {
    const shown = await ask(['tee', '-a', 'data/notes.txt']);
    const r = await api.post(`/approvals/${shown.id}/decision`, { decision: 'approved' });
    expect(r.status).toBe(200);
    expect(await running.ctx.store.getApproval(shown.id)).toMatchObject({
      status: 'approved',
      decided_by: running.ctx.person,
    });
  });
});
