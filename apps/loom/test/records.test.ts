// What a person reads from `loom approvals …` and `loom audit tail`: the values and argv of a call,
// the agent, the run, the tier, the expiry; follow modes that end cleanly on Ctrl-C. Real bin,
// broker process, store and commands.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BrokerProcess, killBrokers, LOOM, loom, startBrokerProcess } from './cli';

const WORKSPACE = `version: 1
command_packs:
  - id: files
    permission: strict
    credentials_ref: api_token
    env:
      API_TOKEN: '{{credential.api_token}}'
    commands:
      - id: touch
        argv: [touch, '--', '{{file}}']
        effects: write
  - id: text
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
agents:
  - id: editor
    grants: [files.touch, pack:text]
`;

let t: { path: string; cleanup: () => void };
let instance: string;
const brokers: BrokerProcess[] = [];

beforeEach(async () => {
  t = tempDir('loom-records-');
  writeFileSync(join(t.path, 'workspace.yaml'), WORKSPACE);
  instance = join(t.path, 'instance');
  const r = await loom(['init', instance, '--workspace', join(t.path, 'workspace.yaml')]);
  expect(r.code, r.stderr).toBe(0);
  writeFileSync(join(instance, 'credentials.json'), JSON.stringify({ api_token: 'tok-SUPERSECRET-1' }), {
    mode: 0o600,
  });
});
afterEach(async () => {
  await killBrokers(brokers);
  t.cleanup();
});

async function broker(): Promise<string> {
  const scope = join(t.path, 'scope.yaml');
  writeFileSync(scope, 'run: run-7\nagent: editor\n');
  const queue = join(t.path, 'q.sock');
  brokers.push(await startBrokerProcess(instance, queue, scope));
  return queue;
}

const call = (queue: string, id: string, args: unknown) =>
  loom(['command', 'run', id, '--args-json', '-', '--json'], {
    env: { LOOM_PAGE_RPC_QUEUE: queue },
    stdin: JSON.stringify(args),
  });

const approvalId = async (queue: string, file: string): Promise<string> => {
  const r = await call(queue, 'files.touch', { file });
  return (r.json().body as { approval: { id: string } }).approval.id;
};

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

/** Starts a loom process that follows the store; resolves its output once `ready` says so. */
function follow(args: string[]) {
  const child = spawn(process.execPath, [LOOM, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { test: (s: string) => boolean; resolve: () => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    for (const w of waiters.splice(0)) {
      if (w.test(stdout)) w.resolve();
      else waiters.push(w);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return {
    child,
    exited,
    out: () => stdout,
    err: () => stderr,
    /** Resolves once stdout holds `n` lines. */
    lines: (n: number) =>
      new Promise<void>((resolve) => {
        const test = (s: string) => s.split('\n').length - 1 >= n;
        if (test(stdout)) resolve();
        else waiters.push({ test, resolve });
      }),
  };
}

describe('loom approvals shows what a person judges', () => {
  it('list shows the values, the argv, the plan hash, the tier, the agent, the run, the age and the expiry of each call', async () => {
    const queue = await broker();
    const a = await approvalId(queue, 'new.txt');
    const b = await approvalId(queue, '../../escape.txt');
    const r = await loom(['approvals', 'list', '--instance', instance]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^${b}  pending  files.touch  tier strict  agent editor  run run-7  asked \\d+[smh] ago  expires ${TIME}\n` +
          `  args  file="../../escape.txt"\n` +
          `  argv  touch -- ../../escape.txt\n` +
          '  plan  [0-9a-f]{12}\n' +
          `${a}  pending  files.touch  tier strict  agent editor  run run-7  asked \\d+[smh] ago  expires ${TIME}\n` +
          `  args  file="new.txt"\n` +
          `  argv  touch -- new.txt\n` +
          '  plan  [0-9a-f]{12}\n$',
      ),
    );
  });

  it('cuts a long value with a marker, --json gives it whole, and a credential shows as the marker only', async () => {
    const queue = await broker();
    const long = `${'a'.repeat(100)}.txt`;
    await approvalId(queue, long);
    await approvalId(queue, 'tok-SUPERSECRET-1.txt');
    const r = await loom(['approvals', 'list', '--instance', instance]);
    expect(r.stdout).toContain(`  args  file="${'a'.repeat(80)}"…(+24 chars)\n`);
    expect(r.stdout).toContain(`  argv  touch -- ${'a'.repeat(80)}…(+24 chars)\n`);
    expect(r.stdout).toContain('  args  file="[redacted].txt"\n  argv  touch -- "[redacted].txt"\n');
    const json = await loom(['approvals', 'list', '--json', '--instance', instance]);
    const rows = json.json().approvals as { args: { file: string }; argv: string[] }[];
    expect(rows.map((x) => x.args.file)).toEqual(['[redacted].txt', long]);
    expect(rows[1]?.argv).toEqual(['touch', '--', long]);
    expect(r.stdout + json.stdout).not.toContain('SUPERSECRET');
  });

  it('escapes control and direction characters so a value cannot repaint the line', async () => {
    const queue = await broker();
    await approvalId(queue, 'ok\u001b[2K\u202eevil');
    const r = await loom(['approvals', 'list', '--instance', instance]);
    expect(r.stdout).toContain('  args  file="ok\\u001b[2K\\u202eevil"\n');
    expect(r.stdout).toContain('  argv  touch -- "ok\\u001b[2K\\u202eevil"\n');
    expect(r.stdout).not.toContain('\u001b');
  });

  it('approve and deny show the call they decided; a denial never reads as usable', async () => {
    const queue = await broker();
    const a = await approvalId(queue, 'new.txt');
    const approved = await loom(['approvals', 'approve', a, '--by', 'person:ann', '--instance', instance]);
    expect(approved.stdout).toMatch(
      new RegExp(
        `^${a} approved: the identical call may run once, until ${TIME}\n` +
          `${a}  approved  files.touch  tier strict  agent editor  run run-7  may run once until ${TIME}\n` +
          `  args  file="new.txt"\n  argv  touch -- new.txt\n  plan  [0-9a-f]{12}\n$`,
      ),
    );
    const b = await approvalId(queue, 'other.txt');
    const denied = await loom(['approvals', 'deny', b, '--instance', instance]);
    expect(denied.stdout).toMatch(
      new RegExp(
        `^${b} denied: the call will not run; the agent is told a person denied it\n` +
          `${b}  denied  files.touch  tier strict  agent editor  run run-7  refused until ${TIME}\n` +
          `  args  file="other.txt"\n  argv  touch -- other.txt\n  plan  [0-9a-f]{12}\n$`,
      ),
    );
    expect(denied.stdout).not.toMatch(/usable|may run/);
  });

  it('shows an approval recorded before values were kept as not recorded, after migrating the store', async () => {
    const queue = await broker();
    await approvalId(queue, 'new.txt');
    await killBrokers(brokers);
    // Make the file what an older release left: schema 1, an approval without values.
    const db = new Database(join(instance, 'loom.db'));
    db.exec(
      [
        'ALTER TABLE approvals DROP COLUMN args',
        'ALTER TABLE approvals DROP COLUMN argv',
        'ALTER TABLE approvals DROP COLUMN tier',
        'ALTER TABLE approvals DROP COLUMN plan_hash',
        'ALTER TABLE approvals DROP COLUMN decided_via',
        'ALTER TABLE approvals DROP COLUMN assertion',
        'ALTER TABLE approvals DROP COLUMN plan',
        'ALTER TABLE approvals DROP COLUMN session',
        'ALTER TABLE approvals DROP COLUMN display',
        'ALTER TABLE approvals DROP COLUMN preview',
        'DROP TABLE approval_notices',
        ...['chain', 'chain_n', 'prev', 'hash'].map((c) => `ALTER TABLE audit DROP COLUMN ${c}`),
        'DROP TABLE audit_heads',
        'DROP TABLE audit_checkpoints',
        'DROP TABLE tool_pins',
        'DROP TABLE tool_sightings',
        ...['audit_actor', 'audit_command', 'audit_outcome', 'audit_at', 'approvals_status'].map(
          (i) => `DROP INDEX ${i}`,
        ),
        "UPDATE meta SET value = '1' WHERE key = 'schema'",
      ].join(';'),
    );
    db.close();
    const r = await loom(['approvals', 'list', '--instance', instance]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ {2}tier \? {2}agent editor {2}run run-7 {2}asked \d+[smh] ago {2}expires/);
    expect(r.stdout).toContain(
      '  args  (not recorded: requested before this version kept values)\n  argv  (not recorded)\n',
    );
  });

  it('watch prints each pending approval once as it arrives, one line each, and Ctrl-C ends it with exit 0', async () => {
    const queue = await broker();
    const a = await approvalId(queue, 'first.txt');
    const w = follow(['approvals', 'watch', '--instance', instance]);
    await w.lines(1);
    const b = await approvalId(queue, 'second.txt');
    await approvalId(queue, 'first.txt'); // the identical call: the same pending approval, not a new line
    await w.lines(2);
    w.child.kill('SIGINT');
    expect(await w.exited).toEqual({ code: 0, signal: null });
    expect(w.err()).toBe('');
    expect(w.out()).toMatch(
      new RegExp(
        `^${a}  files.touch  file="first.txt"  argv: touch -- first.txt  tier strict  agent editor  run run-7  expires ${TIME}\n` +
          `${b}  files.touch  file="second.txt"  argv: touch -- second.txt  tier strict  agent editor  run run-7  expires ${TIME}\n$`,
      ),
    );
  });
});

describe('loom audit tail', () => {
  it('shows one line per call with the argv it ran, and no listing row per call', async () => {
    const queue = await broker();
    await call(queue, 'text.echo', { message: 'hello world' });
    await call(queue, 'text.echo', { message: 'x'.repeat(90) });
    const r = await loom(['audit', 'tail', '--instance', instance]);
    expect(r.stdout).toMatch(
      new RegExp(
        `^\\d+  ${TIME}  agent:editor  run  text.echo  ok/ok  argv: echo "hello world"\n` +
          `\\d+  ${TIME}  agent:editor  run  text.echo  ok/ok  argv: echo ${'x'.repeat(80)}…\\(\\+10 chars\\)\n$`,
      ),
    );
  });

  it('filters by agent, command, status and time', async () => {
    const queue = await broker();
    await call(queue, 'text.echo', { message: 'one' });
    await approvalId(queue, 'new.txt');
    const refused = await loom(['audit', 'tail', '--status', 'refused', '--instance', instance]);
    expect(refused.stdout).toMatch(
      new RegExp(
        `^\\d+  ${TIME}  agent:editor  run  files.touch  refused/refused \\(approval_required\\)\n$`,
      ),
    );
    const echo = await loom([
      'audit',
      'tail',
      '--command',
      'text.echo',
      '--agent',
      'editor',
      '--instance',
      instance,
    ]);
    expect(echo.stdout).toMatch(
      new RegExp(`^\\d+  ${TIME}  agent:editor  run  text.echo  ok/ok  argv: echo one\n$`),
    );
    const nobody = await loom(['audit', 'tail', '--agent', 'someone', '--instance', instance]);
    expect([nobody.code, nobody.stdout]).toEqual([0, '']);
    const later = await loom(['audit', 'tail', '--since', '2999-01-01', '--instance', instance]);
    expect([later.code, later.stdout]).toEqual([0, '']);
    const recent = await loom(['audit', 'tail', '--since', '1h', '--json', '--instance', instance]);
    // --json gives every row: the echo's durable start row too.
    expect(
      (recent.json().events as { phase: string; command: string }[]).map((e) => [e.phase, e.command]),
    ).toEqual([
      ['start', 'text.echo'],
      ['run', 'text.echo'],
      ['run', 'files.touch'],
    ]);
    const started = await loom(['audit', 'tail', '--status', 'started', '--instance', instance]);
    expect(started.stdout).toMatch(
      new RegExp(`^\\d+  ${TIME}  agent:editor  start  text.echo  started/ok\n$`),
    );
    const bad = await loom(['audit', 'tail', '--since', 'yesterday', '--instance', instance]);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      "loom audit: --since must be a date (2026-11-01), an ISO time (2026-11-01T12:00:00Z) or a duration (30d, 12h, 90m), found 'yesterday'\n",
    ]);
  });

  it('--follow prints the tail, then each new matching event as it is written; Ctrl-C ends it with exit 0', async () => {
    const queue = await broker();
    await call(queue, 'text.echo', { message: 'before' });
    const f = follow(['audit', 'tail', '--follow', '--command', 'text.echo', '--instance', instance]);
    await f.lines(1);
    await approvalId(queue, 'new.txt'); // another command: filtered out
    await call(queue, 'text.echo', { message: 'after' });
    await f.lines(2);
    f.child.kill('SIGINT');
    expect(await f.exited).toEqual({ code: 0, signal: null });
    expect(f.err()).toBe('');
    expect(f.out()).toMatch(
      new RegExp(
        `^\\d+  ${TIME}  agent:editor  run  text.echo  ok/ok  argv: echo before\n` +
          `\\d+  ${TIME}  agent:editor  run  text.echo  ok/ok  argv: echo after\n$`,
      ),
    );
  });
});
