import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokerHello, brokerList, brokerRequest, brokerRun } from '@harness/protocol/client';
import { openStoreTarget, StoreError } from '@harness/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  decideApproval,
  getApproval,
  listApprovals,
  type RunningBroker,
  startBroker,
  tailAudit,
} from '../src/api';
import { openStore } from '../src/instance';
import { freshInstance, rawLines } from './helpers';

let env: Awaited<ReturnType<typeof freshInstance>>;
const brokers: RunningBroker[] = [];

beforeEach(async () => {
  env = await freshInstance();
});
afterEach(async () => {
  for (const b of brokers.splice(0)) await b.close();
  env.cleanup();
});

async function start(scope: Record<string, unknown>, name = 'q.sock'): Promise<RunningBroker> {
  const b = await startBroker({
    instanceDir: env.instance,
    socketPath: join(env.root, 'run', name),
    scope: { run: 'run-1', agent: 'reader', ...scope } as never,
  });
  brokers.push(b);
  return b;
}

const raw = (path: string, text: string, n: number) => rawLines(path, text, n);

const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

describe('the broker lists only what its scope admits [HC-09]', () => {
  it('lists the agent’s granted pack commands plus the loom.* built-ins [HC-09]', async () => {
    const b = await start({});
    const r = await brokerList(b.socketPath);
    expect(r.ok && ids(r.value.commands)).toEqual(
      ['loom.authoring-context', 'loom.compose', 'loom.inspect', 'text.echo', 'text.fail'].sort(),
    );
  });

  it('a scope grants subset narrows the listing; builtins: false removes the built-ins [HC-09]', async () => {
    const b = await start({
      agent: 'editor',
      grants: ['text.echo', 'text.touch'],
      builtins: ['loom.inspect'],
    });
    const r = await brokerList(b.socketPath);
    expect(r.ok && ids(r.value.commands)).toEqual(['loom.inspect', 'text.echo', 'text.touch']);
    const none = await start({ builtins: false }, 'q2.sock');
    const r2 = await brokerList(none.socketPath);
    expect(r2.ok && ids(r2.value.commands)).toEqual(['text.echo', 'text.fail']);
  });

  it('rows carry id, title, help, inputs, effect, scope and the readOnlyGranted stamp [HC-09]', async () => {
    const b = await start({ agent: 'editor' });
    const r = await brokerList(b.socketPath);
    if (!r.ok) throw new Error('list failed');
    const byId = new Map(r.value.commands.map((c) => [c.id, c]));
    expect(byId.get('text.echo')).toMatchObject({ effect: 'read', readOnlyGranted: true, scope: 'global' });
    expect(byId.get('text.touch')).toMatchObject({ effect: 'write', readOnlyGranted: false });
    expect(byId.get('loom.inspect')).toMatchObject({ effect: 'read', readOnlyGranted: true, scope: 'loom' });
    expect(byId.get('loom.compose')).toMatchObject({ effect: 'write', readOnlyGranted: false });
    expect(byId.get('vault.peek')?.ifc).toEqual({ confidentiality: ['secret'] });
  });

  it('readOnly: false stamps nothing; a readOnly list stamps only those [HC-60]', async () => {
    const none = await start({ readOnly: false });
    const r = await brokerList(none.socketPath);
    expect(r.ok && r.value.commands.every((c) => c.readOnlyGranted === false)).toBe(true);
    const some = await start({ readOnly: ['text.echo'] }, 'q2.sock');
    const r2 = await brokerList(some.socketPath);
    expect(r2.ok && r2.value.commands.filter((c) => c.readOnlyGranted).map((c) => c.id)).toEqual([
      'text.echo',
    ]);
  });
});

describe('the broker refuses every command its scope does not grant [HC-10]', () => {
  it('a pack write the agent does not hold is forbidden and nothing runs [HC-10]', async () => {
    const b = await start({});
    const file = join(env.root, 'touched');
    const r = await brokerRun(b.socketPath, { command: 'text.touch', args: { file } });
    expect(r.ok && r.value).toMatchObject({
      ok: false,
      code: 'forbidden',
      reason: 'not_in_scope',
      mayHaveLanded: false,
    });
    expect(existsSync(file)).toBe(false);
  });

  it('a command the scope narrowed away is forbidden although the agent holds it [HC-10]', async () => {
    const b = await start({ agent: 'editor', grants: ['text.echo'] });
    const r = await brokerRun(b.socketPath, { command: 'text.touch', args: { file: join(env.root, 'x') } });
    expect(r.ok && r.value.code).toBe('forbidden');
  });

  it('an excluded built-in is forbidden; an unknown command is unknown_command [HC-10]', async () => {
    const b = await start({ builtins: ['loom.inspect'] });
    const c = await brokerRun(b.socketPath, {
      command: 'loom.compose',
      args: { request_id: 'r', components: [{ ref: 'page:a' }] },
    });
    expect(c.ok && c.value.code).toBe('forbidden');
    const u = await brokerRun(b.socketPath, { command: 'nope.nothing', args: {} });
    expect(u.ok && u.value).toMatchObject({ ok: false, code: 'unknown_command' });
  });

  it('a command withdrawn from the scope after listing is refused at run time [HC-91]', async () => {
    const b = await start({ grants: ['text.echo'] });
    const listed = await brokerList(b.socketPath);
    expect(listed.ok && ids(listed.value.commands)).toContain('text.echo');
    await b.close();
    brokers.splice(0);
    const narrower = await start({ grants: ['text.fail'] });
    const r = await brokerRun(narrower.socketPath, { command: 'text.echo', args: { message: 'hi' } });
    expect(r.ok && r.value.code).toBe('forbidden');
  });
});

describe('the broker stamps the agent actor and its run [HC-11]', () => {
  it('an actor or run named in the request is ignored; the audit and the receipts carry agent:<id> [HC-11]', async () => {
    const b = await start({ agent: 'editor', run: 'run-A' });
    const answers = await raw(
      b.socketPath,
      `${JSON.stringify({
        protocol: 'loom-broker/2',
        id: 'x1',
        op: 'run',
        command: 'loom.compose',
        args: { request_id: 'r1', components: [{ ref: 'page:a' }] },
        actor: 'person:owner',
        run: 'run-Z',
      })}\n`,
      1,
    );
    expect(answers[0]).toMatchObject({ id: 'x1', ok: true, result: { ok: true, code: 'ok' } });
    const events = (await tailAudit(env.instance, 5)).filter((e) => e.phase === 'run');
    expect(events.at(-1)).toMatchObject({ actor: 'agent:editor', run: 'run-A', command: 'loom.compose' });
    const store = await openStore(env.instance);
    try {
      expect(await store.receipts('run-A/agent:editor', 5)).toHaveLength(1);
      expect(await store.receipts('run-Z/person:owner', 5)).toHaveLength(0);
    } finally {
      await store.close();
    }
  });

  it('hello names the protocol, the run and the agent actor', async () => {
    const b = await start({ run: 'run-H' });
    const h = await brokerHello(b.socketPath);
    expect(h).toEqual({
      ok: true,
      value: { protocol: 'loom-broker/2', run: 'run-H', agent: 'agent:reader' },
    });
  });
});

describe('protocol versions (docs/protocol.md, "Versions")', () => {
  it('refuses a request of an older or a newer version by name, and runs nothing', async () => {
    const b = await start({});
    const file = join(env.root, 'touched-by-old-client');
    const line = (protocol: string, id: string) =>
      `${JSON.stringify({ protocol, id, op: 'run', command: 'text.touch', args: { file } })}\n`;
    const answers = await raw(b.socketPath, line('loom-broker/1', 'old') + line('loom-broker/3', 'new'), 2);
    expect(answers.sort((x, y) => String(x.id).localeCompare(String(y.id)))).toEqual([
      {
        protocol: 'loom-broker/2',
        id: 'new',
        ok: false,
        error: {
          code: 'unsupported_protocol',
          message:
            'the request speaks loom-broker/3; this side speaks loom-broker/2. Use a client and a broker of the same protocol version.',
        },
      },
      {
        protocol: 'loom-broker/2',
        id: 'old',
        ok: false,
        error: {
          code: 'unsupported_protocol',
          message:
            'the request speaks loom-broker/1; this side speaks loom-broker/2. Use a client and a broker of the same protocol version.',
        },
      },
    ]);
    expect(existsSync(file)).toBe(false);
  });
});

describe('--read-only', () => {
  it('a granted read runs under --read-only [HC-28]', async () => {
    const b = await start({});
    const r = await brokerRun(b.socketPath, {
      command: 'text.echo',
      args: { message: 'hi' },
      readOnly: true,
    });
    expect(r.ok && r.value).toMatchObject({
      ok: true,
      code: 'ok',
      mayHaveLanded: false,
      body: { output: 'hi\n' },
    });
  });

  it('a write is refused under --read-only before anything runs [HC-59]', async () => {
    const b = await start({ agent: 'editor' });
    const file = join(env.root, 'ro');
    const r = await brokerRun(b.socketPath, { command: 'text.touch', args: { file }, readOnly: true });
    expect(r.ok && r.value).toMatchObject({ ok: false, code: 'forbidden', reason: 'not_read' });
    expect(existsSync(file)).toBe(false);
  });

  it('a read the scope does not stamp read-only is refused under --read-only [HC-60]', async () => {
    const b = await start({ readOnly: false });
    const r = await brokerRun(b.socketPath, {
      command: 'text.echo',
      args: { message: 'hi' },
      readOnly: true,
    });
    expect(r.ok && r.value).toMatchObject({ ok: false, code: 'forbidden', reason: 'readonly_not_granted' });
  });
});

describe('the command layer', () => {
  it('validates arguments against the row schema and names the failing paths [HC-90]', async () => {
    const b = await start({});
    const r = await brokerRun(b.socketPath, { command: 'text.echo', args: { message: 5, extra: true } });
    expect(r.ok && r.value).toMatchObject({ ok: false, code: 'bad-args', mayHaveLanded: false });
    const errors = r.ok
      ? (r.value.body as { errors: { path: string }[] }).errors.map((e) => e.path).sort()
      : [];
    expect(errors).toEqual(['/extra', '/message']);
  });

  it('a failing pack command is failed with its stderr; the answer carries the row’s ifc label', async () => {
    const b = await start({ agent: 'editor' });
    const f = await brokerRun(b.socketPath, { command: 'text.fail', args: {} });
    expect(f.ok && f.value).toMatchObject({
      ok: false,
      code: 'failed',
      reason: 'exit_nonzero',
      body: { exitCode: 3 },
    });
    expect(f.ok && (f.value.body as { stderr: string }).stderr).toContain('broken');
    const p = await brokerRun(b.socketPath, { command: 'vault.peek', args: {} });
    expect(p.ok && p.value).toMatchObject({ ok: true, ifc: { confidentiality: ['secret'] } });
  });

  it('a cautious write needs approval before it runs [CP-08]', async () => {
    const b = await start({ agent: 'editor' });
    const file = join(env.root, 'cautious');
    const r = await brokerRun(b.socketPath, { command: 'text.touch', args: { file } });
    expect(r.ok && r.value).toMatchObject({ ok: false, code: 'refused', reason: 'approval_required' });
    expect(existsSync(file)).toBe(false);
  });
});

describe('approvals (strict tier)', () => {
  const shout = (b: RunningBroker, message = 'hey') =>
    brokerRun(b.socketPath, { command: 'text.shout', args: { message } });

  it('a strict call creates a pending approval and is refused approval_required with its id [CP-09]', async () => {
    const b = await start({ agent: 'editor' });
    const r = await shout(b);
    expect(r.ok && r.value).toMatchObject({
      ok: false,
      code: 'refused',
      reason: 'approval_required',
      mayHaveLanded: false,
    });
    const id = r.ok ? (r.value.body as { approval: { id: string } }).approval.id : '';
    expect(id).toMatch(/^apr-/);
    const pending = await listApprovals(env.instance);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      id,
      status: 'pending',
      command: 'text.shout',
      agent: 'editor',
      arg_names: ['message'],
    });
    // The identical call again reuses the pending approval rather than piling up requests.
    const again = await shout(b);
    expect(again.ok && (again.value.body as { approval: { id: string } }).approval.id).toBe(id);
  });

  it('once approved, the next identical call runs once; the one after needs approval again [CP-09]', async () => {
    const b = await start({ agent: 'editor' });
    const first = await shout(b);
    const id = first.ok ? (first.value.body as { approval: { id: string } }).approval.id : '';
    await decideApproval(env.instance, id, 'approved', 'person:owner');
    const different = await shout(b, 'other words');
    expect(different.ok && different.value.reason).toBe('approval_required');
    const run = await shout(b);
    expect(run.ok && run.value).toMatchObject({ ok: true, code: 'ok', body: { output: 'hey\n' } });
    const next = await shout(b);
    expect(next.ok && next.value.reason).toBe('approval_required');
    expect((await listApprovals(env.instance, { status: 'consumed' }))[0]?.id).toBe(id);
  });

  it('the audit row of a call that consumed an approval names who approved it', async () => {
    const b = await start({ agent: 'editor' });
    const first = await shout(b);
    const id = first.ok ? (first.value.body as { approval: { id: string } }).approval.id : '';
    expect((await getApproval(env.instance, id))?.status).toBe('pending');
    await decideApproval(env.instance, id, 'approved', 'elicitation:some-client');
    await shout(b);
    const ran = (await tailAudit(env.instance, 10)).filter((e) => e.outcome === 'ok');
    expect(ran.at(-1)?.payload).toMatchObject({ approvalId: id, approved_by: 'elicitation:some-client' });
    const refused = (await tailAudit(env.instance, 10)).find((e) => e.outcome === 'refused');
    expect(refused?.payload).not.toHaveProperty('approved_by');
    expect(await getApproval(env.instance, 'apr-none')).toBeUndefined();
  });

  it('an approval is bound to the agent: another agent’s identical call is not approved by it', async () => {
    const b = await start({ agent: 'editor' });
    const first = await shout(b);
    const id = first.ok ? (first.value.body as { approval: { id: string } }).approval.id : '';
    await decideApproval(env.instance, id, 'approved', 'person:owner');
    const store = await openStore(env.instance);
    try {
      expect((await store.getApproval(id))?.agent).toBe('editor');
    } finally {
      await store.close();
    }
  });

  it('a denied call is refused approval_denied until the denial expires', async () => {
    const b = await start({ agent: 'editor' });
    const first = await shout(b);
    const id = first.ok ? (first.value.body as { approval: { id: string } }).approval.id : '';
    await decideApproval(env.instance, id, 'denied', 'person:owner');
    const again = await shout(b);
    expect(again.ok && again.value).toMatchObject({ code: 'refused', reason: 'approval_denied' });
  });

  it('approvals expire: a pending request past its lifetime is expired and cannot be approved', async () => {
    const store = await openStore(env.instance);
    try {
      const t0 = new Date('2030-01-01T00:00:00Z');
      const rec = await store.requestApproval({
        key: 'k',
        command: 'text.shout',
        agent: 'editor',
        run: 'r',
        action: 'command:call:text:shout',
        reason: 'strict',
        argNames: [],
        args: {},
        argv: null,
        tier: 'strict',
        ttlMs: 60_000,
        now: t0,
      });
      const later = new Date(t0.getTime() + 61_000);
      await expect(
        store.decideApproval(rec.id, 'approved', 'person:owner', 60_000, later),
      ).rejects.toThrowError(StoreError);
      expect((await store.listApprovals({ status: 'all', now: later }))[0]?.status).toBe('expired');
      const approved = await store.requestApproval({
        key: 'k2',
        command: 'text.shout',
        agent: 'editor',
        run: 'r',
        action: 'a',
        reason: 'r',
        argNames: [],
        args: {},
        argv: null,
        tier: 'strict',
        ttlMs: 60_000,
        now: t0,
      });
      await store.decideApproval(approved.id, 'approved', 'person:owner', 60_000, t0);
      expect(await store.takeApproval('k2', new Date(t0.getTime() + 120_000))).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('approvals are never reachable through the socket: an op other than hello/list/run is bad_request', async () => {
    const b = await start({ agent: 'editor' });
    const r = await brokerRequest(b.socketPath, { op: 'approve', approvalId: 'apr-1' });
    expect(r).toMatchObject({ ok: false, failure: { kind: 'envelope', code: 'bad_request' } });
  });
});

describe('audit', () => {
  it('every call — listed, refused or run — ends in one run event, a started process also has its start event; refused calls keep no argument values', async () => {
    const b = await start({ agent: 'editor' });
    await brokerList(b.socketPath);
    await brokerRun(b.socketPath, { command: 'text.echo', args: { message: 'visible-in-argv' } });
    await brokerRun(b.socketPath, { command: 'nope.x', args: { token: 'SECRET-VALUE-456' } });
    await brokerRun(b.socketPath, { command: 'text.shout', args: { message: 'SECRET-VALUE-789' } });
    await brokerRun(b.socketPath, { command: 'text.echo', args: { message: 7 } as never });
    const events = await tailAudit(env.instance, 10);
    expect(events.map((e) => [e.phase, e.command, e.outcome, e.code])).toEqual([
      ['list', '*', 'listed', 'ok'],
      ['start', 'text.echo', 'started', 'ok'],
      ['run', 'text.echo', 'ok', 'ok'],
      ['run', 'nope.x', 'rejected', 'unknown_command'],
      ['run', 'text.shout', 'refused', 'refused'],
      ['run', 'text.echo', 'rejected', 'bad-args'],
    ]);
    expect(JSON.stringify(events)).not.toContain('SECRET-VALUE');
    expect(events[1]?.payload.call_id).toMatch(/^call-[0-9a-f]{16}$/);
    expect(events[2]?.payload.call_id).toBe(events[1]?.payload.call_id);
    expect(events[2]).toMatchObject({
      action: 'command:call:text:echo',
      payload: {
        provider: 'command',
        container: 'text',
        member: 'echo',
        effects: 'read',
        arg_names: ['message'],
      },
    });
  });

  it('a credential value never reaches the audit log or the answer [CP-40]', async () => {
    writeFileSync(
      join(env.instance, 'credentials.json'),
      JSON.stringify({ api_token: 'tok-SUPERSECRET-1' }),
      { mode: 0o600 },
    );
    const b = await start({ agent: 'editor' });
    const r = await brokerRun(b.socketPath, { command: 'creds.show', args: {} });
    expect(r.ok && r.value.code).toBe('ok');
    expect(JSON.stringify(r)).not.toContain('SUPERSECRET');
    expect(JSON.stringify(await tailAudit(env.instance, 10))).not.toContain('SUPERSECRET');
  });
});

describe('the broker socket', () => {
  it('is a Unix socket of mode 0600', async () => {
    const b = await start({});
    const st = statSync(b.socketPath);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
  });

  it('replaces a stale socket from a dead broker (killed with SIGKILL)', async () => {
    const path = join(env.root, 'run', 'stale.sock');
    mkdirSync(join(env.root, 'run'), { recursive: true });
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`,
    ]);
    await new Promise<void>((r) => child.stdout.once('data', () => r()));
    child.kill('SIGKILL');
    await new Promise<void>((r) => child.once('exit', () => r()));
    expect(lstatSync(path).isSocket()).toBe(true);
    const b = await start({}, 'stale.sock');
    expect((await brokerHello(b.socketPath)).ok).toBe(true);
  });

  it('never steals a live socket, and never replaces a file that is not a socket', async () => {
    const b = await start({});
    await expect(start({}, 'q.sock')).rejects.toMatchObject({
      code: 'queue_busy',
      message: expect.stringContaining(b.socketPath),
    });
    expect((await brokerHello(b.socketPath)).ok).toBe(true);
    const file = join(env.root, 'run', 'plain');
    writeFileSync(file, 'keep me');
    await expect(start({}, 'plain')).rejects.toMatchObject({ code: 'queue_busy' });
  });

  it('answers malformed lines with envelope errors and keeps serving', async () => {
    const b = await start({});
    const lines = [
      'not json',
      JSON.stringify({ protocol: 'loom-broker/9', id: 'v', op: 'hello' }),
      JSON.stringify({ protocol: 'loom-broker/2', id: 'm', op: 'run', command: 'text.echo' }),
      JSON.stringify({ protocol: 'loom-broker/2', id: 'h', op: 'hello' }),
    ];
    const out = await raw(b.socketPath, `${lines.join('\n')}\n`, 4);
    const byId = new Map(out.map((a) => [a.id, a]));
    expect(byId.get('')).toMatchObject({
      ok: false,
      error: { code: 'bad_request', message: 'the request line is not JSON' },
    });
    expect(byId.get('v')).toMatchObject({ ok: false, error: { code: 'unsupported_protocol' } });
    // The message names the one field to fix (parseRequest of @harness/protocol).
    expect(byId.get('m')).toMatchObject({
      ok: false,
      error: {
        code: 'bad_request',
        message: 'the request does not match loom-broker/2: /args is missing: it must be an object',
      },
    });
    expect(byId.get('h')).toMatchObject({ ok: true });
  });

  it('answers a line over 1 MiB with request_too_large', async () => {
    const b = await start({});
    const big = JSON.stringify({
      protocol: 'loom-broker/2',
      id: 'big',
      op: 'run',
      command: 'text.echo',
      args: { message: 'x'.repeat(1024 * 1024 + 10) },
    });
    const out = await raw(b.socketPath, `${big}\n`, 1);
    expect(out[0]).toMatchObject({ ok: false, error: { code: 'request_too_large' } });
  });

  it('serves several requests on one connection, each answer carrying its id', async () => {
    const b = await start({});
    const lines = ['a', 'b', 'c'].map((id) => JSON.stringify({ protocol: 'loom-broker/2', id, op: 'list' }));
    const out = await raw(b.socketPath, `${lines.join('\n')}\n`, 3);
    expect(out.map((a) => a.id).sort()).toEqual(['a', 'b', 'c']);
  });

  it('close() removes the socket', async () => {
    const b = await start({});
    await b.close();
    brokers.splice(0);
    expect(existsSync(b.socketPath)).toBe(false);
  });
});

describe('job ids', () => {
  it('a scope naming a job refuses requests without it or with another one [HC-19]', async () => {
    const b = await start({ job: 'job-7' });
    expect(await brokerList(b.socketPath)).toMatchObject({
      ok: false,
      failure: { kind: 'envelope', code: 'forbidden' },
    });
    expect((await brokerList(b.socketPath, { jobId: 'job-7' })).ok).toBe(true);
    const wrong = await brokerRun(b.socketPath, {
      command: 'text.echo',
      args: { message: 'x' },
      jobId: 'job-8',
    });
    expect(wrong.ok && wrong.value).toMatchObject({ code: 'forbidden', reason: 'job_mismatch' });
    const right = await brokerRun(b.socketPath, {
      command: 'text.echo',
      args: { message: 'x' },
      jobId: 'job-7',
    });
    expect(right.ok && right.value.code).toBe('ok');
  });

  it('a scope without a job accepts any job id', async () => {
    const b = await start({});
    expect(
      (await brokerRun(b.socketPath, { command: 'text.echo', args: { message: 'x' }, jobId: 'whatever' })).ok,
    ).toBe(true);
  });
});

describe('the store behind a factory', () => {
  it('opens the instance’s store through the factory it is given and closes it on close', async () => {
    const targets: unknown[] = [];
    let closed = 0;
    const b = await startBroker({
      instanceDir: env.instance,
      socketPath: join(env.root, 'run', 'f.sock'),
      scope: { run: 'run-F', agent: 'editor' },
      openStore: async (target) => {
        targets.push(target);
        const store = await openStoreTarget(target);
        return {
          ...store,
          close: async () => {
            closed++;
            await store.close();
          },
        };
      },
    });
    const r = await brokerRun(b.socketPath, {
      command: 'loom.compose',
      args: { request_id: 'f1', components: [{ ref: 'page:f' }] },
    });
    expect(r.ok && r.value.ok).toBe(true);
    await b.close();
    expect(targets).toEqual([{ kind: 'sqlite', file: join(env.instance, 'loom.db') }]);
    expect(closed).toBe(1);
    const store = await openStore(env.instance);
    try {
      expect((await store.receipts('run-F/agent:editor', 5)).map((x) => x.request_id)).toEqual(['f1']);
    } finally {
      await store.close();
    }
  });
});
