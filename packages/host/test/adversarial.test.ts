// Adversarial review of the broker and command layer: an agent that controls only a request's
// fields (command id, args JSON, loomId, readOnly, jobId) and tries to leave its grant, reuse or
// bend an approval, or take the broker down. Real brokers on real sockets over a real store.
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { CommandAnswer } from '@harness/protocol';
import { brokerHello, brokerRun } from '@harness/protocol/client';
import { StoreError } from '@harness/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideApproval, listApprovals, type RunningBroker, startBroker, tailAudit } from '../src/api';
import { freshInstance, rawLines } from './helpers';

let env: Awaited<ReturnType<typeof freshInstance>>;
const brokers: RunningBroker[] = [];
const sockets: Socket[] = [];

beforeEach(async () => {
  env = await freshInstance();
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const b of brokers.splice(0)) await b.close();
  env.cleanup();
});

async function start(scope: Record<string, unknown> = {}, name = 'q.sock'): Promise<RunningBroker> {
  const b = await startBroker({
    instanceDir: env.instance,
    socketPath: join(env.root, 'run', name),
    scope: { run: 'run-1', agent: 'reader', ...scope } as never,
  });
  brokers.push(b);
  return b;
}

const raw = (path: string, text: string | Buffer, n: number) =>
  rawLines(path, text, n, (s) => sockets.push(s));

const runLine = (fields: Record<string, unknown>, id = 'r1'): string =>
  `${JSON.stringify({ protocol: 'loom-broker/2', id, op: 'run', ...fields })}\n`;

async function run(b: RunningBroker, command: string, args: Record<string, unknown>): Promise<CommandAnswer> {
  const r = await brokerRun(b.socketPath, { command, args });
  if (!r.ok) throw new Error(`no answer: ${JSON.stringify(r)}`);
  return r.value;
}

const touched = (name: string): boolean => {
  try {
    lstatSync(join(env.root, name));
    return true;
  } catch {
    return false;
  }
};

describe('adversarial: grant escapes through the socket', () => {
  it('an actor, run or agent field in a request is ignored: the audit names the broker’s agent and run', async () => {
    const b = await start();
    const [a] = await raw(
      b.socketPath,
      runLine({
        command: 'text.echo',
        args: { message: 'x' },
        actor: 'agent:editor',
        run: 'run-evil',
        agent: 'editor',
        scope: { agent: 'editor' },
      }),
      1,
    );
    expect(((a?.result ?? {}) as CommandAnswer).code).toBe('ok');
    const last = (await tailAudit(env.instance, 1))[0];
    expect(last).toMatchObject({ actor: 'agent:reader', run: 'run-1', command: 'text.echo' });
  });

  it('ids that look like a granted or an ungranted command never reach it (case, whitespace, unicode, dots)', async () => {
    const b = await start();
    const tries = [
      'TEXT.ECHO',
      'text.Echo',
      ' text.echo',
      'text.echo ',
      'text.echo\n',
      'text.echo\u200b',
      'text\uff0eecho', // fullwidth full stop
      'text..echo',
      'text.echo.',
      '.text.echo',
      'text/echo',
      'text:echo',
      'text.touch', // exists, not granted to reader
      'ＴＥＸＴ.touch',
      'loom.compose ',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'text.__proto__',
      'text.constructor',
    ];
    for (const command of tries) {
      const r = await brokerRun(b.socketPath, { command, args: { file: 'pwned', message: 'x' } });
      expect(r.ok, command).toBe(true);
      const a = (r as { value: CommandAnswer }).value;
      expect(a.ok, command).toBe(false);
      expect(['unknown_command', 'forbidden'], command).toContain(a.code);
      expect(a.mayHaveLanded, command).toBe(false);
    }
    expect(touched('pwned')).toBe(false);
  });

  it('readOnly as a string, number or inside __proto__ never turns a write into a run, nor a refusal into an ok', async () => {
    const b = await start({ agent: 'editor', grants: ['text.touch', 'text.echo'] });
    const lines = [
      runLine({ command: 'text.touch', args: { file: 'a' }, readOnly: 'true' }, 'a'),
      runLine({ command: 'text.touch', args: { file: 'b' }, readOnly: 1 }, 'b'),
      `{"protocol":"loom-broker/2","id":"c","op":"run","command":"text.touch","args":{"file":"c"},"__proto__":{"readOnly":true}}\n`,
      `{"protocol":"loom-broker/2","id":"d","op":"run","command":"text.touch","args":{"file":"d"},"readOnly":true}\n`,
    ];
    const answers = await raw(b.socketPath, lines.join(''), 4);
    const byId = Object.fromEntries(answers.map((a) => [a.id, a]));
    expect(byId.a).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(byId.b).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    // __proto__ is an own key of the parsed line, not a prototype: readOnly stays unset, and the
    // cautious write goes to approval rather than running.
    expect(byId.c).toMatchObject({ ok: true, result: { code: 'refused', reason: 'approval_required' } });
    expect(byId.d).toMatchObject({ ok: true, result: { code: 'forbidden', reason: 'not_read' } });
    for (const f of ['a', 'b', 'c', 'd']) expect(touched(f)).toBe(false);
  });

  it('__proto__ / constructor keys in args are refused as unknown arguments and pollute nothing', async () => {
    const b = await start();
    const answers = await raw(
      b.socketPath,
      [
        `{"protocol":"loom-broker/2","id":"p","op":"run","command":"text.echo","args":{"message":"x","__proto__":{"polluted":1}}}\n`,
        `{"protocol":"loom-broker/2","id":"q","op":"run","command":"text.echo","args":{"message":"x","constructor":{"prototype":{"polluted":1}}}}\n`,
        `{"protocol":"loom-broker/2","id":"s","op":"run","command":"loom.compose","args":{"request_id":"r","components":[{"ref":"page:a","__proto__":{"x":1}}],"__proto__":{"loom_id":"x"}}}\n`,
      ].join(''),
      3,
    );
    for (const a of answers) expect((a.result as CommandAnswer).code).toBe('bad-args');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('duplicate keys: the broker acts on the same (last) value it validated', async () => {
    const b = await start();
    const [a] = await raw(
      b.socketPath,
      `{"protocol":"loom-broker/2","id":"d","op":"run","command":"text.echo","command":"text.touch","args":{"file":"dup"}}\n`,
      1,
    );
    expect(((a?.result ?? {}) as CommandAnswer).code).toBe('forbidden');
    expect(touched('dup')).toBe(false);
  });
});

describe('adversarial: approvals are bound to the exact call', () => {
  async function pendingFor(b: RunningBroker, args: Record<string, unknown>): Promise<string> {
    const first = await run(b, 'text.shout', args);
    expect(first).toMatchObject({ code: 'refused', reason: 'approval_required' });
    return (first.body as { approval: { id: string } }).approval.id;
  }

  it('an approval of one call does not run a different one (trailing space, NFC vs NFD, extra key, type)', async () => {
    const b = await start({ agent: 'editor' });
    const id = await pendingFor(b, { message: 'caf\u00e9' });
    await decideApproval(env.instance, id, 'approved', 'person:test');
    for (const args of [
      { message: 'cafe\u0301' }, // NFD of the approved NFC text
      { message: 'caf\u00e9 ' },
      { message: 'CAF\u00c9' },
    ]) {
      const r = await run(b, 'text.shout', args);
      expect(r.reason, JSON.stringify(args)).toBe('approval_required');
    }
    // The approval is still there for the exact call, which runs once.
    const ok = await run(b, 'text.shout', { message: 'caf\u00e9' });
    expect(ok.code).toBe('ok');
    const again = await run(b, 'text.shout', { message: 'caf\u00e9' });
    expect(again.reason).toBe('approval_required');
  });

  it('key order and number spelling (1 vs 1.0) are the same call; the consumed approval is not reusable', async () => {
    const b = await start({ agent: 'editor' });
    const line = (id: string, args: string) =>
      `{"protocol":"loom-broker/2","id":"${id}","op":"run","command":"text.shout","args":${args}}\n`;
    const [first] = await raw(b.socketPath, line('a', '{"message":"n"}'), 1);
    const approval = (((first?.result ?? {}) as CommandAnswer).body as { approval: { id: string } }).approval
      .id;
    await decideApproval(env.instance, approval, 'approved', 'person:test');
    // Two identical calls race for one approval: exactly one runs.
    const answers = await raw(b.socketPath, line('b', '{"message":"n"}') + line('c', '{"message":"n"}'), 2);
    const codes = answers.map((a) => (a.result as CommandAnswer).code).sort();
    expect(codes).toEqual(['ok', 'refused']);
  });

  it('another agent (or a run of another agent) cannot use an approval given to this one', async () => {
    const editor = await start({ agent: 'editor', run: 'run-e' }, 'e.sock');
    const id = await pendingFor(editor, { message: 'mine' });
    await decideApproval(env.instance, id, 'approved', 'person:test');
    const reader = await start({ agent: 'reader', run: 'run-r' }, 'r.sock');
    const r = await run(reader, 'text.shout', { message: 'mine' });
    expect(r.code).toBe('forbidden'); // not in reader's scope at all
    const ok = await run(editor, 'text.shout', { message: 'mine' });
    expect(ok.code).toBe('ok');
  });

  it('an expired approval does not run the call', async () => {
    const b = await startBroker({
      instanceDir: env.instance,
      socketPath: join(env.root, 'run', 'ttl.sock'),
      scope: { run: 'run-1', agent: 'editor' } as never,
      approvalTtlMs: 1,
    });
    brokers.push(b);
    // A request that lives 1 ms may have expired by the time its answer is written: either way the
    // call is held, not run, and the answer names the request.
    const first = await run(b, 'text.shout', { message: 'late' });
    expect(first).toMatchObject({
      code: 'refused',
      reason: expect.stringMatching(/^approval_(required|expired)$/),
    });
    const id = (first.body as { approval: { id: string } }).approval.id;
    const expiresAt = Date.parse((await listApprovals(env.instance, { status: 'all' }))[0]?.expires_at ?? '');
    // Expiry is what is tested: the wait lets the request's own deadline pass.
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now() + 2)));
    await expect(decideApproval(env.instance, id, 'approved', 'person:test')).rejects.toThrow(StoreError);
    const r = await run(b, 'text.shout', { message: 'late' });
    expect(r).toMatchObject({
      code: 'refused',
      reason: expect.stringMatching(/^approval_(required|expired)$/),
    });
    expect((await listApprovals(env.instance, { status: 'all' })).some((a) => a.status === 'consumed')).toBe(
      false,
    );
  });
});

describe('adversarial: resource attacks on the broker', () => {
  it('deeply nested JSON (request and args) is answered, not a crash; the broker keeps serving', async () => {
    const b = await start();
    const depth = 200_000;
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const answers = await raw(
      b.socketPath,
      [
        `{"protocol":"loom-broker/2","id":"n1","op":"run","command":"text.echo","args":{"message":${deep}}}\n`,
        `{"protocol":"loom-broker/2","id":"n2","op":"run","command":"loom.compose","args":{"request_id":"x","components":[{"ref":"page:a","title":${deep}}]}}\n`,
        `{"protocol":"loom-broker/2","id":"n3","op":"hello","extra":${deep}}\n`,
      ].join(''),
      3,
    );
    const byId = Object.fromEntries(answers.map((a) => [a.id, a]));
    expect(((byId.n1?.result ?? {}) as CommandAnswer).code).toBe('bad-args');
    expect(((byId.n2?.result ?? {}) as CommandAnswer).code).toBe('bad-args');
    // Unknown envelope fields are allowed; the deep one is never walked.
    expect(byId.n3).toMatchObject({ ok: true, result: { agent: 'agent:reader' } });
    expect((await brokerHello(b.socketPath)).ok).toBe(true);
  });

  it('a request over 1 MiB with no newline is refused and the connection closed; others are served', async () => {
    const b = await start();
    const big = `{"protocol":"loom-broker/2","id":"big","op":"run","command":"text.echo","args":{"message":"${'a'.repeat(1024 * 1024 + 10)}`;
    const [a] = await raw(b.socketPath, big, 1);
    expect(a).toMatchObject({ ok: false, error: { code: 'request_too_large' } });
    expect((await brokerHello(b.socketPath)).ok).toBe(true);
  });

  it('partial lines, idle connections and a client that never reads do not block other clients', async () => {
    const b = await start();
    // 50 idle connections holding half a line each.
    for (let i = 0; i < 50; i++) {
      const s = connect(b.socketPath);
      sockets.push(s);
      s.on('error', () => {});
      s.write('{"protocol":"loom-broker/2","id":"half"');
    }
    // A client that sends many requests and never reads the answers.
    const greedy = connect(b.socketPath);
    sockets.push(greedy);
    greedy.on('error', () => {});
    greedy.pause();
    greedy.write(`${JSON.stringify({ protocol: 'loom-broker/2', id: 'h', op: 'list' })}\n`.repeat(2000));
    // 30 concurrent well-behaved clients are all answered.
    const many = await Promise.all(Array.from({ length: 30 }, () => brokerHello(b.socketPath)));
    expect(many.every((r) => r.ok)).toBe(true);
    // close() is not held up by the connection that never reads.
    const closing = b.close();
    await expect(closing).resolves.toBeUndefined();
  });

  it('a half-line left when the client closes is dropped, not run', async () => {
    const b = await start({ agent: 'editor', grants: ['text.touch'] });
    await new Promise<void>((resolve) => {
      const s = connect(b.socketPath, () => {
        s.end(runLine({ command: 'text.touch', args: { file: 'half' } }).trimEnd());
      });
      s.on('close', () => resolve());
      s.resume();
    });
    expect((await brokerHello(b.socketPath)).ok).toBe(true);
    expect(touched('half')).toBe(false);
    expect((await tailAudit(env.instance, 5)).filter((e) => e.command === 'text.touch')).toHaveLength(0);
  });
});

describe('adversarial: store and socket path', () => {
  it('SQL in loom ids, refs and request ids is data', async () => {
    const b = await start();
    const evil = `x'); DROP TABLE audit; --`;
    // request_id and loom_id have an id pattern (bad-args before the store); refs and titles are free text.
    const refused = await run(b, 'loom.compose', { request_id: evil, components: [{ ref: 'page:a' }] });
    expect(refused.code).toBe('bad-args');
    const c = await run(b, 'loom.compose', {
      request_id: 'r-1',
      components: [{ ref: `page:${evil}`, title: evil }],
    });
    expect(c.code).toBe('ok');
    const loomId = (c.body as { receipt: { loom_id: string } }).receipt.loom_id;
    const i = await run(b, 'loom.inspect', { loom_id: `${loomId}' OR '1'='1` });
    expect(i.code).toBe('bad-args');
    const ok = await run(b, 'loom.inspect', { loom_id: loomId });
    expect(ok.code).toBe('ok');
    expect((await tailAudit(env.instance, 50)).length).toBeGreaterThan(2);
  });

  it('a symlink at the queue path is never followed or replaced, whatever it points to', async () => {
    const target = join(env.root, 'precious.txt');
    writeFileSync(target, 'keep');
    mkdirSync(join(env.root, 'run'), { recursive: true });
    const link = join(env.root, 'run', 'link.sock');
    symlinkSync(target, link);
    await expect(start({}, 'link.sock')).rejects.toThrow(/not a socket/);
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    // A dangling symlink too: binding would create the socket wherever it points.
    const dangling = join(env.root, 'run', 'dangling.sock');
    symlinkSync(join(env.root, 'elsewhere.sock'), dangling);
    await expect(start({}, 'dangling.sock')).rejects.toThrow(/not a socket/);
    expect(touched('elsewhere.sock')).toBe(false);
  });

  it('a corrupt store file stops the broker at start with a clear error (no socket left behind)', async () => {
    writeFileSync(join(env.instance, 'loom.db'), 'this is not sqlite '.repeat(500));
    await expect(start({}, 'corrupt.sock')).rejects.toThrow();
    expect(touched('run/corrupt.sock')).toBe(false);
  });

  it('the instance directory is private (0700)', () => {
    expect(lstatSync(env.instance).mode & 0o777).toBe(0o700);
  });
});
