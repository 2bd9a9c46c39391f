import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BrokerProcess, killBrokers, loom, startBrokerProcess } from './cli';

const WORKSPACE = `version: 1
command_packs:
  - id: text
    permission_overrides:
      shout: strict
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
      - id: touch
        argv: [touch, '--', '{{file}}']
        effects: write
      - id: shout
        argv: [echo, '{{message}}']
        effects: write
agents:
  - id: reader
    grants: [pack:text]
  - id: editor
    grants: [pack:text, text.touch, text.shout]
`;

let t: { path: string; cleanup: () => void };
let instance: string;
let queue: string;
const brokers: BrokerProcess[] = [];

async function broker(scope: string, name = 'q.sock'): Promise<BrokerProcess> {
  const file = join(t.path, `${name}.scope.yaml`);
  writeFileSync(file, scope);
  const b = await startBrokerProcess(instance, join(t.path, name), file);
  brokers.push(b);
  return b;
}
const env = (extra: Record<string, string> = {}) => ({ LOOM_PAGE_RPC_QUEUE: queue, ...extra });
const run = (id: string, args: unknown, flags: string[] = [], extra: Record<string, string> = {}) =>
  loom(['command', 'run', id, '--args-json', '-', '--json', ...flags], {
    env: env(extra),
    stdin: JSON.stringify(args),
  });

beforeEach(async () => {
  t = tempDir('loom-cli-');
  writeFileSync(join(t.path, 'workspace.yaml'), WORKSPACE);
  instance = join(t.path, 'instance');
  queue = join(t.path, 'q.sock');
  const r = await loom(['init', instance, '--workspace', join(t.path, 'workspace.yaml')]);
  expect(r.code, r.stderr).toBe(0);
});
afterEach(async () => {
  await killBrokers(brokers);
  t.cleanup();
});

describe('loom init', () => {
  it('creates the instance directory with mode 0700, the store and the workspace record', () => {
    expect(statSync(instance).mode & 0o777).toBe(0o700);
    expect(readdirSync(instance).sort()).toEqual(
      expect.arrayContaining(['instance.json', 'loom.db', 'workspace.yaml']),
    );
  });

  it('refuses a non-empty directory and a workspace that does not load, writing nothing', async () => {
    const again = await loom(['init', instance, '--workspace', join(t.path, 'workspace.yaml')]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('not empty');
    writeFileSync(join(t.path, 'bad.yaml'), 'command_packs: 5\n');
    const bad = await loom(['init', join(t.path, 'other'), '--workspace', join(t.path, 'bad.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('does not load');
    expect(existsSync(join(t.path, 'other'))).toBe(false);
    expect(readdirSync(t.path).filter((f) => f.includes('.init-'))).toEqual([]);
  });
});

describe('loom broker start', () => {
  it('prints one ready line, serves, and on SIGTERM exits 0 and removes the socket', async () => {
    const b = await broker('run: r1\nagent: reader\n');
    // `queue` is the socket's old name in the ready line, kept for scripts that read it.
    expect(b.ready).toMatchObject({ ready: true, socket: queue, queue, run: 'r1', agent: 'agent:reader' });
    expect(statSync(queue).mode & 0o777).toBe(0o600);
    b.child.kill('SIGTERM');
    const ended = await b.exited;
    expect(ended, b.stderr()).toEqual({ code: 0, signal: null });
    expect(existsSync(queue)).toBe(false);
  });

  it('takes --queue, the old name of --socket, with one deprecation warning on stderr', async () => {
    const file = join(t.path, 'scope-old-flag.yaml');
    writeFileSync(file, 'run: r1\nagent: reader\n');
    const b = await startBrokerProcess(instance, queue, file, '--queue');
    expect(b.ready).toMatchObject({ ready: true, socket: queue });
    b.child.kill('SIGTERM');
    await b.exited;
    const warnings = b
      .stderr()
      .split('\n')
      .filter((l) => l.includes('HARNESS_DEP_QUEUE_PATH'));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^\(node:\d+\) \[HARNESS_DEP_QUEUE_PATH\] DeprecationWarning: --queue is deprecated: rename it to --socket \(same value\)\.$/,
      ),
    ]);
  });

  it('refuses --socket and --queue together, exit 2, and leaves no socket', async () => {
    const file = join(t.path, 'scope.yaml');
    writeFileSync(file, 'run: r1\nagent: reader\n');
    const r = await loom([
      'broker',
      'start',
      '--instance',
      instance,
      '--socket',
      queue,
      '--queue',
      queue,
      '--scope',
      file,
    ]);
    expect([r.code, r.stderr]).toEqual([
      2,
      'loom broker: give --socket only: --queue is its old name, and both are given\n',
    ]);
    expect(existsSync(queue)).toBe(false);
  });

  it('refuses a --retention that is not a duration, exit 2, and leaves no socket', async () => {
    const file = join(t.path, 'scope.yaml');
    writeFileSync(file, 'run: r1\nagent: reader\n');
    const args = ['broker', 'start', '--instance', instance, '--socket', queue, '--scope', file];
    const r = await loom([...args, '--retention', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "loom broker: --retention must be a duration such as 30d, 12h or 90m, found 'soon'\n",
    );
    expect(existsSync(queue)).toBe(false);
  });

  it('refuses a scope file that does not parse, naming it, and leaves no socket', async () => {
    const file = join(t.path, 'broken.yaml');
    writeFileSync(file, 'run: [unclosed\n');
    const r = await loom(['broker', 'start', '--instance', instance, '--socket', queue, '--scope', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
    expect(existsSync(queue)).toBe(false);
  });

  it('refuses a scope that widens the agent’s grants, naming the grant', async () => {
    const file = join(t.path, 'wide.yaml');
    writeFileSync(file, 'run: r1\nagent: reader\ngrants: [text.touch]\n');
    const r = await loom(['broker', 'start', '--instance', instance, '--socket', queue, '--scope', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('grant "text.touch" widens');
  });

  it('refuses an unreadable instance directory', async () => {
    const file = join(t.path, 's.yaml');
    writeFileSync(file, 'run: r1\nagent: reader\n');
    const r = await loom([
      'broker',
      'start',
      '--instance',
      join(t.path, 'nowhere'),
      '--socket',
      queue,
      '--scope',
      file,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not a readable Loom instance');
    expect(existsSync(queue)).toBe(false);
  });

  it('never steals the socket of a live broker', async () => {
    await broker('run: r1\nagent: reader\n');
    const file = join(t.path, 's2.yaml');
    writeFileSync(file, 'run: r2\nagent: editor\n');
    const r = await loom(['broker', 'start', '--instance', instance, '--socket', queue, '--scope', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`a live broker already listens at ${queue}`);
    expect((await loom(['command', 'list', '--json'], { env: env() })).json()).toMatchObject({
      commands: expect.any(Array),
    });
  });
});

describe('loom command list / run (the CLI protocol)', () => {
  it('list prints {commands} with the scope’s rows and exit 0 [HC-24]', async () => {
    await broker('run: r1\nagent: reader\n');
    const r = await loom(['command', 'list', '--json'], { env: env() });
    expect(r.code).toBe(0);
    const rows = (r.json().commands as { id: string; readOnlyGranted: boolean }[]).map((c) => c.id).sort();
    expect(rows).toEqual(['loom.authoring-context', 'loom.compose', 'loom.inspect', 'text.echo']);
  });

  it('run reads the arguments on stdin and prints one answer; exit 0 when ok [HC-25]', async () => {
    await broker('run: r1\nagent: reader\n');
    const r = await run('text.echo', { message: '; rm -rf / $(whoami)' });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      ok: true,
      id: 'text.echo',
      code: 'ok',
      mayHaveLanded: false,
      completed: [],
      body: { output: '; rm -rf / $(whoami)\n' },
    });
  });

  it('--loom and --expect reach the built-ins [HC-26, HC-27]', async () => {
    await broker('run: r1\nagent: editor\n');
    const c = await run('loom.compose', { request_id: 'r1', components: [{ ref: 'page:a', stage: 'main' }] });
    const loomId = (c.json().body as { receipt: { loom_id: string } }).receipt.loom_id;
    const i = await run('loom.inspect', {}, ['--loom', loomId]);
    expect(i.json()).toMatchObject({ ok: true, body: { loom_id: loomId, version: 1 } });
    const stale = await run(
      'loom.compose',
      { request_id: 'r2', loom_id: loomId, components: [{ ref: 'page:b' }] },
      ['--expect', '7'],
    );
    expect(stale.code).toBe(1);
    expect(stale.json()).toMatchObject({ ok: false, code: 'version_conflict' });
  });

  it('--read-only reaches the broker, which runs a granted read and refuses a granted write [HC-158, HC-159]', async () => {
    await broker('run: r1\nagent: editor\n');
    const read = await run('text.echo', { message: 'hi' }, ['--read-only']);
    expect([read.code, read.json().ok]).toEqual([0, true]);
    const write = await run('text.touch', { file: join(t.path, 'touched') }, ['--read-only']);
    expect(write.code).toBe(1);
    expect(write.json()).toMatchObject({ ok: false, code: 'forbidden', mayHaveLanded: false });
    expect(existsSync(join(t.path, 'touched'))).toBe(false);
    // Without the demand the same granted write passes the broker and reaches the command layer,
    // whose cautious tier holds it for approval: the broker's refusal came from --read-only alone.
    const plain = await run('text.touch', { file: join(t.path, 'touched') });
    expect(plain.json()).toMatchObject({ ok: false, code: 'refused', reason: 'approval_required' });
  });

  it('this host supports --transport direct and the three built-ins, and grants them to every broker scope [LA-33, LA-34]', async () => {
    await broker('run: r1\nagent: reader\n');
    const r = await loom(['command', 'list', '--json'], { env: env() });
    const rows = r.json().commands as { id: string; effect: string }[];
    expect(rows.filter((row) => row.id.startsWith('loom.')).map((row) => [row.id, row.effect])).toEqual([
      ['loom.compose', 'write'],
      ['loom.inspect', 'read'],
      ['loom.authoring-context', 'read'],
    ]);
    const help = await loom(['command', 'run', '--help']);
    expect(help.stdout).toContain('--transport direct');
  });

  it('exit 1 with the answer for a command that is not ok (unknown_command, forbidden, bad-args)', async () => {
    await broker('run: r1\nagent: reader\n');
    const u = await run('nope.cmd', {});
    expect([u.code, u.json().code]).toEqual([1, 'unknown_command']);
    const f = await run('text.touch', { file: join(t.path, 'x') });
    expect([f.code, f.json().code]).toEqual([1, 'forbidden']);
    const b = await run('text.echo', { message: 1 });
    expect([b.code, b.json().code]).toEqual([1, 'bad-args']);
  });

  it('exit 2 for malformed stdin, a non-object, oversized arguments and bad flags, with nothing sent', async () => {
    await broker('run: r1\nagent: editor\n');
    const malformed = await loom(['command', 'run', 'loom.compose', '--args-json', '-', '--json'], {
      env: env(),
      stdin: '{"request_id": ',
    });
    expect([malformed.code, malformed.json()]).toEqual([
      2,
      { error: { code: 'usage', message: expect.stringContaining('not valid JSON') } },
    ]);
    const arr = await loom(['command', 'run', 'loom.compose', '--args-json', '-', '--json'], {
      env: env(),
      stdin: '[1]',
    });
    expect(arr.code).toBe(2);
    const big = await loom(['command', 'run', 'text.echo', '--args-json', '-', '--json'], {
      env: env(),
      stdin: JSON.stringify({ message: 'x'.repeat(1024 * 1024) }),
    });
    expect([big.code, (big.json().error as { message: string }).message]).toEqual([
      2,
      expect.stringContaining('exceed'),
    ]);
    const flag = await loom(['command', 'run', 'text.echo', '--bogus'], { env: env() });
    expect(flag.code).toBe(2);
    const expectBad = await loom(['command', 'run', 'text.echo', '--expect', 'abc'], { env: env() });
    expect(expectBad.code).toBe(2);
    const audit = await loom(['audit', 'tail', '--json', '--instance', instance]);
    expect((audit.json().events as { phase: string }[]).filter((e) => e.phase === 'run')).toEqual([]);
  });

  it('exit 3 when the broker socket is gone, never falling back to direct access [LA-31]', async () => {
    const b = await broker('run: r1\nagent: editor\n');
    b.child.kill('SIGKILL');
    await b.exited;
    const direct = { LOOM_INSTANCE_DIR: instance, LOOM_RUN_ID: 'r1', LOOM_ACTOR: 'agent:editor' };
    const r = await run('loom.compose', { request_id: 'r1', components: [{ ref: 'page:a' }] }, [], direct);
    expect(r.code).toBe(3);
    expect(r.json()).toMatchObject({ error: { code: 'unreachable' } });
    const none = await loom(['command', 'list', '--json'], { env: { ...direct } });
    expect([none.code, none.json()]).toEqual([
      3,
      {
        error: {
          code: 'unreachable',
          message: 'LOOM_PAGE_RPC_QUEUE is not set: no broker to reach (direct access is never a fallback)',
        },
      },
    ]);
    const a = await loom(['audit', 'tail', '--json', '--instance', instance]);
    expect((a.json().events as { command: string }[]).filter((e) => e.command === 'loom.compose')).toEqual(
      [],
    );
  });

  it('--transport direct runs loom.* built-ins against LOOM_INSTANCE_DIR as LOOM_ACTOR, and no pack command [LA-32]', async () => {
    const direct = { LOOM_INSTANCE_DIR: instance, LOOM_RUN_ID: 'run-d', LOOM_ACTOR: 'agent:cf-harness' };
    const c = await loom(
      ['command', 'run', '--transport', 'direct', 'loom.compose', '--args-json', '-', '--json'],
      {
        env: direct,
        stdin: JSON.stringify({ request_id: 'd1', components: [{ ref: 'page:a' }] }),
      },
    );
    expect([c.code, c.json().code]).toEqual([0, 'ok']);
    const p = await loom(
      ['command', 'run', 'text.echo', '--transport', 'direct', '--args-json', '-', '--json'],
      {
        env: direct,
        stdin: '{"message":"x"}',
      },
    );
    expect(p.json()).toMatchObject({ ok: false, code: 'forbidden', reason: 'direct_transport' });
    const l = await loom(['command', 'list', '--json', '--transport', 'direct'], { env: direct });
    expect((l.json().commands as { id: string }[]).map((r) => r.id).sort()).toEqual([
      'loom.authoring-context',
      'loom.compose',
      'loom.inspect',
    ]);
    const missing = await loom(
      ['command', 'run', 'loom.inspect', '--transport', 'direct', '--args-json', '-', '--json'],
      { env: {}, stdin: '{}' },
    );
    expect(missing.code).toBe(2);
    const person = await loom(['command', 'list', '--json', '--transport', 'direct'], {
      env: { ...direct, LOOM_ACTOR: 'person:owner' },
    });
    expect(person.code).toBe(2);
    const audit = await loom(['audit', 'tail', '--json', '--instance', instance]);
    expect(
      (audit.json().events as { actor: string; run: string; command: string }[]).find(
        (e) => e.command === 'loom.compose',
      ),
    ).toMatchObject({
      actor: 'agent:cf-harness',
      run: 'run-d',
    });
  });

  it('LOOM_COMMAND_JOB_ID reaches the broker as the job id', async () => {
    await broker('run: r1\nagent: reader\njob: job-42\n');
    expect((await loom(['command', 'list', '--json'], { env: env() })).code).toBe(1);
    expect(
      (await loom(['command', 'list', '--json'], { env: env({ LOOM_COMMAND_JOB_ID: 'job-42' }) })).code,
    ).toBe(0);
    const r = await run('text.echo', { message: 'x' }, [], { LOOM_COMMAND_JOB_ID: 'job-41' });
    expect(r.json()).toMatchObject({ code: 'forbidden', reason: 'job_mismatch' });
  });
});

describe('an agent never runs a command its scope does not grant, whatever it sends [HC-10]', () => {
  it('actor fields, --read-only, --loom, --expect and direct variables never unlock a write [HC-10]', async () => {
    await broker('run: r1\nagent: reader\n');
    const file = join(t.path, 'must-not-exist');
    const attempts: [Record<string, unknown>, string[], Record<string, string>][] = [
      [{ file }, [], {}],
      [{ file, actor: 'person:owner' }, [], {}],
      [{ file }, ['--read-only'], {}],
      [{ file }, ['--loom', 'loom-1', '--expect', '1'], {}],
      [{ file }, [], { LOOM_ACTOR: 'agent:editor', LOOM_RUN_ID: 'x', LOOM_INSTANCE_DIR: instance }],
    ];
    for (const [args, flags, extra] of attempts) {
      const r = await run('text.touch', args, flags, extra);
      expect(r.json().code, JSON.stringify([args, flags])).toBe('forbidden');
    }
    expect(existsSync(file)).toBe(false);
  });
});

describe('approvals and audit through the CLI', () => {
  it('a strict call waits for `loom approvals approve`, then the identical call runs once', async () => {
    await broker('run: r1\nagent: editor\n');
    const first = await run('text.shout', { message: 'hello' });
    expect(first.json()).toMatchObject({ ok: false, code: 'refused', reason: 'approval_required' });
    const id = (first.json().body as { approval: { id: string } }).approval.id;
    const listed = await loom(['approvals', 'list', '--json', '--instance', instance]);
    expect((listed.json().approvals as { id: string }[]).map((a) => a.id)).toEqual([id]);
    const approved = await loom(['approvals', 'approve', id, '--instance', instance]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(
      new RegExp(`^${id} approved: the identical call may run once, until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\n`),
    );
    expect((await run('text.shout', { message: 'hello' })).json()).toMatchObject({
      ok: true,
      body: { output: 'hello\n' },
    });
    expect((await run('text.shout', { message: 'hello' })).json()).toMatchObject({
      reason: 'approval_required',
    });
    const again = (await run('text.shout', { message: 'again' })).json().body as { approval: { id: string } };
    const denied = await loom(['approvals', 'deny', again.approval.id, '--instance', instance]);
    expect(denied.stdout.split('\n')[0]).toBe(
      `${again.approval.id} denied: the call will not run; the agent is told a person denied it`,
    );
    expect(denied.stdout).not.toContain('usable');
    const unknown = await loom(['approvals', 'deny', 'apr-nope', '--instance', instance]);
    expect(unknown.code).toBe(1);
    // The person's two decisions are events of their own, between the calls they decided.
    const tail = await loom(['audit', 'tail', '--json', '-n', '7', '--instance', instance]);
    expect(
      (tail.json().events as { command: string; outcome: string }[]).map((e) => [e.command, e.outcome]),
    ).toEqual([
      ['text.shout', 'refused'],
      ['text.shout', 'approved'],
      ['text.shout', 'started'],
      ['text.shout', 'ok'],
      ['text.shout', 'refused'],
      ['text.shout', 'refused'],
      ['text.shout', 'denied'],
    ]);
    const text = await loom(['audit', 'tail', '--instance', instance]);
    expect(text.stdout).toContain('agent:editor');
  });

  it('audit prune removes old audit events and spent approvals, keeps pending ones, and refuses an unreadable --before', async () => {
    await broker('run: r1\nagent: editor\n');
    const first = await run('text.shout', { message: 'hello' });
    const id = (first.json().body as { approval: { id: string } }).approval.id;
    await loom(['approvals', 'approve', id, '--instance', instance]);
    await run('text.shout', { message: 'hello' });
    const pending = await run('text.shout', { message: 'hello' });
    const pendingId = (pending.json().body as { approval: { id: string } }).approval.id;
    const recent = await loom(['audit', 'prune', '--before', '30d', '--json', '--instance', instance]);
    expect(recent.code, recent.stderr).toBe(0);
    expect(recent.json()).toMatchObject({ audit: 0, approvals: 0 });
    // The consumed approval expires an hour after its use; pruning before a later time removes it.
    const all = await loom(['audit', 'prune', '--before', '2999-01-01', '--json', '--instance', instance]);
    expect(all.json()).toMatchObject({ before: '2999-01-01T00:00:00.000Z', approvals: 1 });
    expect(all.json().audit as number).toBeGreaterThanOrEqual(3);
    const tail = await loom(['audit', 'tail', '--json', '--instance', instance]);
    expect(tail.json().events).toEqual([]);
    const listed = await loom(['approvals', 'list', '--json', '--instance', instance]);
    expect((listed.json().approvals as { id: string }[]).map((a) => a.id)).toEqual([pendingId]);
    const bad = await loom(['audit', 'prune', '--before', 'last week', '--instance', instance]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      "--before must be a date (2026-11-01), an ISO time (2026-11-01T12:00:00Z) or a duration (30d, 12h, 90m), found 'last week'",
    );
  });

  it('--version prints the package version', async () => {
    const r = await loom(['--version']);
    expect([r.code, r.stdout.trim()]).toEqual([0, 'loom 0.1.0']);
  });

  it('--help works everywhere', async () => {
    for (const args of [
      ['--help'],
      ['command', '--help'],
      ['command', 'run', '--help'],
      ['command', 'list', '--help'],
      ['broker', '--help'],
      ['approvals', '--help'],
      ['audit', '--help'],
      ['init', '--help'],
      ['migrate', '--help'],
    ]) {
      const r = await loom(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toContain('loom');
    }
  });

  it('an unreadable instance directory is a clear error for the operator commands', async () => {
    const locked = join(t.path, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o000);
    const r = await loom(['approvals', 'list', '--instance', locked]);
    chmodSync(locked, 0o700);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not a readable Loom instance');
  });
});
