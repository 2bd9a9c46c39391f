// A call held for approval that waits for a person's decision (`approval_wait`; docs/host.md,
// "Waiting for the decision"): a real workspace, a real store decided through a second handle as a
// person's `harness approvals` would, real processes; and a real broker socket for the progress line
// that names the approval. Every wait ends on an event: the first waiting report, a decision written.
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { formatIssue } from '@harness/packs';
import type { Store } from '@harness/store';
import { tempDir } from '@harness/test-utils';
import { loadWorkspace } from '@harness/workspace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideApproval } from '../src/api';
import { serveBroker } from '../src/broker';
import type { ApprovalWaiting, CommandHost } from '../src/host';
import { initInstance } from '../src/instance';
import { hostFor } from './helpers';

const WORKSPACE = `version: 1
sandbox_mode: off
approval_wait: 10m
command_packs:
  - id: notes
    permission: strict
    commands:
      - id: write
        argv: [echo, 'wrote:{{line}}']
        effects: write
  - id: quick
    permission: strict
    approval_wait: 300ms
    commands:
      - id: write
        argv: [echo, 'quick:{{line}}']
        effects: write
  - id: now
    permission: strict
    approval_wait: 0
    approval_timeout: 20m
    commands:
      - id: write
        argv: [echo, 'now:{{line}}']
        effects: write
  - id: brief
    permission: strict
    approval_timeout: 400ms
    commands:
      - id: write
        argv: [echo, 'brief:{{line}}']
        effects: write
agents:
  - id: scribe
    grants: [notes.write, quick.write, now.write, brief.write]
`;

let dir: ReturnType<typeof tempDir>;
let instance: string;
let host: CommandHost;
let store: Store;
beforeEach(async () => {
  dir = tempDir('host-approval-wait-');
  writeFileSync(join(dir.path, 'workspace.yaml'), WORKSPACE);
  instance = join(dir.path, 'instance');
  await initInstance(instance, join(dir.path, 'workspace.yaml'));
  ({ host, store } = await hostFor(instance, { run: 'run-w', agent: 'scribe' }));
});
afterEach(async () => {
  host.endWaits();
  await store.close();
  dir.cleanup();
});

/**
 * Starts one call and resolves `waiting` with each approval it is told it waits for, in order; `ended`
 * counts the times its wait was told over.
 */
function waitingCall(command: string, line: string, signal?: AbortSignal) {
  const told: ApprovalWaiting[] = [];
  let ended = 0;
  const listeners: (() => void)[] = [];
  const answer = host.run(
    { op: 'run', command, args: { line } },
    {
      ...(signal ? { signal } : {}),
      onApprovalWait: (w) => {
        if (w === undefined) ended++;
        else told.push(w);
        for (const l of listeners.splice(0)) l();
      },
    },
  );
  /** Resolves once the call has been told of its `n`th approval. */
  const waiting = (n = 1): Promise<ApprovalWaiting> =>
    new Promise((resolve) => {
      const look = (): void => {
        const w = told[n - 1];
        if (w) resolve(w);
        else listeners.push(look);
      };
      look();
    });
  return { answer, waiting, told, ended: () => ended };
}

/** The `run` audit rows of `command`, oldest first. */
async function runRows(command: string) {
  return (await store.tailAudit(100)).filter((e) => e.command === command && e.phase === 'run');
}

describe('a call held for approval waits for the decision where approval_wait is set', () => {
  it('runs once when a person approves while it waits, consuming the approval, and answers with its output', async () => {
    const call = waitingCall('notes.write', 'hello');
    const waiting = await call.waiting();
    expect(waiting.id).toMatch(/^apr/);
    expect(waiting.approve).toContain(`harness approvals approve ${waiting.id}`);
    expect(Date.parse(waiting.waitsUntil)).toBeGreaterThan(Date.now() + 9 * 60_000);
    await decideApproval(instance, waiting.id, 'approved', 'person:tester');
    const answer = await call.answer;
    expect(answer).toMatchObject({ ok: true, code: 'ok', body: { output: 'wrote:hello\n' } });
    expect(call.ended()).toBe(1);
    expect(await store.getApproval(waiting.id)).toMatchObject({
      status: 'consumed',
      decided_by: 'person:tester',
    });
    const rows = await runRows('notes.write');
    // No refusal row: the call answered once, with its run.
    expect(rows.map((r) => [r.outcome, r.reason])).toEqual([['ok', null]]);
    expect(rows[0]?.payload).toMatchObject({
      approvalId: waiting.id,
      approved_by: 'person:tester',
      approval_wait: { ended: 'approved' },
    });
  });

  it('answers approval_denied when a person denies it while it waits, and nothing runs', async () => {
    const call = waitingCall('notes.write', 'no');
    const { id } = await call.waiting();
    await decideApproval(instance, id, 'denied', 'person:tester');
    const answer = await call.answer;
    expect(answer).toMatchObject({
      ok: false,
      code: 'refused',
      reason: 'approval_denied',
      mayHaveLanded: false,
    });
    expect((answer.body as { message: string }).message).toContain(
      `this exact call was denied by person:tester (approval ${id})`,
    );
    const rows = await runRows('notes.write');
    expect(rows.map((r) => [r.outcome, r.reason])).toEqual([['refused', 'approval_denied']]);
    expect(rows[0]?.payload).toMatchObject({ approval_wait: { ended: 'denied' } });
  });

  it('answers approval_required once its wait elapses, the approval still pending and the hint saying so', async () => {
    const call = waitingCall('quick.write', 'later');
    const { id } = await call.waiting();
    const answer = await call.answer;
    expect(answer).toMatchObject({ ok: false, code: 'refused', reason: 'approval_required', kind: 'held' });
    const body = answer.body as { message: string; approval: { id: string } };
    expect(body.approval.id).toBe(id);
    expect(body.message).toMatch(
      new RegExp(
        `no person decided while this call waited 0\\.\\ds; approval ${id} stays pending: a person must approve it \\(harness approvals approve ${id}`,
      ),
    );
    expect((await store.getApproval(id))?.status).toBe('pending');
    const rows = await runRows('quick.write');
    expect(rows[0]?.payload).toMatchObject({
      approval_wait: { ended: 'elapsed', waited_ms: expect.toSatisfy((ms: number) => ms >= 300) },
    });
  });

  it('stops waiting when its caller cancels: nothing runs and the approval stays pending', async () => {
    const controller = new AbortController();
    const call = waitingCall('notes.write', 'cancel me', controller.signal);
    const { id } = await call.waiting();
    controller.abort();
    const answer = await call.answer;
    expect(answer).toMatchObject({ ok: false, code: 'failed', reason: 'cancelled', mayHaveLanded: false });
    const record = await store.getApproval(id);
    expect(answer).toMatchObject({ kind: 'cancelled' });
    expect(answer.body).toEqual({
      status: 'cancelled',
      message: `notes.write was cancelled while it waited for a person's decision; nothing ran, and approval ${id} stays pending`,
      approval: { id, expires_at: record?.expires_at, plan_hash: record?.plan_hash },
    });
    expect((await store.getApproval(id))?.status).toBe('pending');
    const rows = await runRows('notes.write');
    expect(rows.map((r) => [r.outcome, r.payload.refused_before_run])).toEqual([['cancelled', 'cancelled']]);
  });

  it("never waits past the approval's own expiry, and refuses the call when nobody decided by then (approval_expired)", async () => {
    const call = waitingCall('brief.write', 'short-lived');
    const waiting = await call.waiting();
    // The pack's approval_timeout is 400 ms; the workspace's wait of 10 minutes is cut there.
    expect(Date.parse(waiting.waitsUntil)).toBeLessThan(Date.now() + 1_000);
    const answer = await call.answer;
    expect(answer).toMatchObject({
      ok: false,
      code: 'refused',
      reason: 'approval_expired',
      mayHaveLanded: false,
    });
    const record = await store.getApproval(waiting.id);
    expect((answer.body as { message: string }).message).toBe(
      `brief.write: approval ${waiting.id} expired at ${record?.expires_at} with no decision, so this call is refused and nothing ran; tell the person, and make the identical call again only if they want it asked anew`,
    );
    const rows = await runRows('brief.write');
    expect(rows.map((r) => [r.outcome, r.reason])).toEqual([['refused', 'approval_expired']]);
  });

  it('keeps a request open 15 minutes by default, or as long as the pack says (approval_timeout)', async () => {
    const byDefault = await host.run({ op: 'run', command: 'quick.write', args: { line: 'a' } }, {});
    const bySaid = await host.run({ op: 'run', command: 'now.write', args: { line: 'b' } }, {});
    const life = async (answer: { body: unknown }) => {
      const a = await store.getApproval((answer.body as { approval: { id: string } }).approval.id);
      return Date.parse(a?.expires_at ?? '') - Date.parse(a?.created_at ?? '');
    };
    // quick.write waits 300 ms for a decision first, then answers approval_required.
    expect(byDefault).toMatchObject({ reason: 'approval_required' });
    expect(await life(byDefault)).toBe(15 * 60 * 1000);
    expect(await life(bySaid)).toBe(20 * 60 * 1000);
  });

  it('stops every wait when the host ends its waits (a broker closing): the call answers approval_required, the approval pending', async () => {
    const call = waitingCall('notes.write', 'closing');
    const { id } = await call.waiting();
    host.endWaits();
    const answer = await call.answer;
    expect(answer).toMatchObject({ reason: 'approval_required' });
    expect((answer.body as { message: string }).message).toContain(
      `the host is shutting down, so this call waited`,
    );
    expect((await store.getApproval(id))?.status).toBe('pending');
  });

  it('an identical call waiting on the same approval asks again once another call consumed it (single use)', async () => {
    const first = waitingCall('notes.write', 'twice');
    const second = waitingCall('notes.write', 'twice');
    const a = await first.waiting();
    const b = await second.waiting();
    expect(b.id).toBe(a.id);
    await decideApproval(instance, a.id, 'approved', 'person:tester');
    // One of the two takes the approval and runs; the other is told of a new request.
    const ran = await Promise.race([first.answer, second.answer]);
    expect(ran).toMatchObject({ ok: true, body: { output: 'wrote:twice\n' } });
    const other = (await Promise.race([first.answer.then(() => second), second.answer.then(() => first)]))!;
    const again = await other.waiting(2);
    expect(again.id).not.toBe(a.id);
    host.endWaits();
    expect(await other.answer).toMatchObject({
      reason: 'approval_required',
      body: { approval: { id: again.id } },
    });
  });
});

describe('a call held for approval answers at once where no wait is set', () => {
  it('answers approval_required at once with approval_wait: 0 on the pack, over the workspace wait', async () => {
    const call = waitingCall('now.write', 'at once');
    const answer = await call.answer;
    expect(answer).toMatchObject({ reason: 'approval_required' });
    expect(call.told).toEqual([]);
    expect((answer.body as { message: string }).message).toMatch(
      /a person must approve it \(harness approvals approve apr\S+ --instance .*\), then the identical call runs once$/,
    );
  });
});

describe('a waiting call over the broker socket', () => {
  let sockets: Socket[] = [];
  afterEach(() => {
    for (const s of sockets) s.destroy();
    sockets = [];
  });

  it('sends a progress line naming the approval as soon as it waits, then its answer once approved', async () => {
    // Progress every minute: the line that comes first is the one sent when the wait begins.
    const server = await serveBroker(host, join(dir.path, 'b.sock'), { progressEveryMs: 60_000 });
    try {
      const socket = connect(server.socketPath);
      sockets.push(socket);
      const lines = lineReader(socket);
      socket.write(
        `${JSON.stringify({ protocol: 'loom-broker/2', id: 'r1', op: 'run', command: 'notes.write', args: { line: 'over the socket' }, progress: true })}\n`,
      );
      const progress = await lines.next();
      expect(progress).toMatchObject({
        id: 'r1',
        progress: { outputBytes: 0, approval: { id: expect.stringMatching(/^apr/) } },
      });
      expect(progress).not.toHaveProperty('ok');
      const approval = (progress.progress as { approval: ApprovalWaiting }).approval;
      expect(approval.approve).toContain(`harness approvals approve ${approval.id}`);
      await decideApproval(instance, approval.id, 'approved', 'person:tester');
      const answer = await lines.next();
      expect(answer).toMatchObject({
        id: 'r1',
        ok: true,
        result: { ok: true, body: { output: 'wrote:over the socket\n' } },
      });
    } finally {
      host.endWaits();
      await server.close();
    }
  });
});

describe('approval_wait in the workspace file', () => {
  it('a listing row of a command that may wait carries its timeout plus its wait, so a client waits for both', async () => {
    const listed = await host.list({});
    if ('forbidden' in listed) throw new Error(listed.forbidden);
    const timeouts = Object.fromEntries(listed.commands.map((r) => [r.id, r.timeoutMs]));
    // brief.write's wait of 10 minutes is cut to its request's life, 400 ms.
    expect(timeouts).toEqual({
      'notes.write': 30_000 + 600_000,
      'quick.write': 30_300,
      'now.write': 30_000,
      'brief.write': 30_400,
    });
  });

  it('refuses a value that is not a wait, naming the file, the line and an example', async () => {
    const text = `approval_wait: 2 minutes
command_packs:
  - id: p
    approval_wait: 25h
    commands:
      - { id: a, argv: ['true'] }
`;
    const loaded = await loadWorkspace({ text, file: 'workspace.yaml' }, { probe: false });
    expect(loaded.ok ? [] : loaded.issues.map(formatIssue)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:1:16: approval_wait: expected a wait such as 2m or 90s (above 0, at most 24h), or 0 for none, found "2 minutes"; e.g. approval_wait: 2m",
        "workspace.yaml:4:20: command_packs[0].approval_wait: expected a wait such as 2m or 90s (above 0, at most 24h), or 0 for none, found "25h"; e.g. approval_wait: 2m",
      ]
    `);
  });
});

/** The JSON lines a socket receives, one at a time. */
function lineReader(socket: Socket): { next: () => Promise<Record<string, unknown>> } {
  socket.setEncoding('utf8');
  const lines: Record<string, unknown>[] = [];
  const waiting: ((line: Record<string, unknown>) => void)[] = [];
  let buffer = '';
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
      buffer = buffer.slice(nl + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  return {
    next: () => {
      const queued = lines.shift();
      return queued ? Promise.resolve(queued) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}
