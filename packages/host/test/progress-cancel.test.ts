// The broker's long-run additions to loom-broker/2 (docs/protocol.md, "Progress and cancellation"),
// spoken line by line on a real socket to a real broker that runs real processes: each row's
// timeout in the listing, progress lines for a run that asked for them, and `cancel`.
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { BrokerAnswer, CommandAnswer, ProgressLine, RunProgress } from '@harness/protocol';
import type { Store } from '@harness/store';
import { processesWith, tempDir, until } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BrokerServer, serveBroker } from '../src/broker';
import { initInstance } from '../src/instance';
import { hostFor } from './helpers';

// `long.hold` prints `bytes` bytes, starts a child carrying `<marker>-child` (so the whole process
// group must go, not only the command), and exits once the file `release` exists.
const HOLD = [
  'const [bytes, release, marker] = process.argv.slice(1);',
  "process.stdout.write('x'.repeat(Number(bytes)));",
  "require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', marker + '-child'], { stdio: 'ignore' });",
  "setInterval(() => { if (require('fs').existsSync(release)) process.exit(0); }, 20);",
].join(' ');

const WORKSPACE = `version: 1
command_packs:
  - id: long
    permission: open
    sandbox: false
    timeout: 6m
    timeout_overrides:
      quick: 5s
    commands:
      - id: hold
        argv: [node, -e, ${JSON.stringify(HOLD)}, --, '{{bytes}}', '{{release}}', '{{marker}}']
        inputs:
          bytes: { type: integer, minimum: 0 }
          release: { type: string }
          marker: { type: string }
        effects: read
      - id: quick
        argv: [echo, quick]
        effects: read
  - id: plain
    commands:
      - id: echo
        argv: [echo, plain]
        effects: read
agents:
  - id: tester
    grants: [pack:long, pack:plain]
`;

/** A line the broker writes: an answer (`ok`), or a progress line about a run in flight. */
type Line = BrokerAnswer | ProgressLine;

/** The progress a line reports, or undefined for an answer. */
const progressOf = (line: Line): RunProgress | undefined => ('progress' in line ? line.progress : undefined);

/** What a line answers: the result of an answer that is not an envelope error; the test fails on any other line. */
function resultOf(line: Line): Extract<BrokerAnswer, { ok: true }>['result'] {
  if (!('ok' in line) || !line.ok) throw new Error(`expected an answer, found ${JSON.stringify(line)}`);
  return line.result;
}

/** The command answer a line carries; the test fails on any other line. */
function commandAnswerOf(line: Line): CommandAnswer {
  const result = resultOf(line);
  if (!('kind' in result)) throw new Error(`expected a command's answer, found ${JSON.stringify(line)}`);
  return result;
}

let root: string;
let cleanup: () => void;
let store: Store;
let server: BrokerServer;
const sockets: Socket[] = [];

beforeEach(async () => {
  const dir = tempDir('host-long-');
  root = dir.path;
  cleanup = dir.cleanup;
  const workspace = join(root, 'workspace.yaml');
  writeFileSync(workspace, WORKSPACE);
  const instance = join(root, 'instance');
  await initInstance(instance, workspace);
  const built = await hostFor(instance, { run: 'run-1', agent: 'tester' } as never);
  store = built.store;
  // One slot per connection: a cancel must be answered although the run it stops holds the slot.
  server = await serveBroker(built.host, join(root, 'run', 'b.sock'), {
    progressEveryMs: 100,
    maxInflightPerConnection: 1,
    queueWaitMs: 60_000,
  });
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server.close();
  await store.close();
  cleanup();
});

/** A raw connection to the broker: lines out as written, lines in as parsed. */
function open(): { send: (line: Record<string, unknown>) => void; next: () => Promise<Line> } {
  const socket = connect(server.socketPath);
  sockets.push(socket);
  socket.setEncoding('utf8');
  const lines: Line[] = [];
  const waiting: ((line: Line) => void)[] = [];
  let buffer = '';
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = JSON.parse(buffer.slice(0, nl)) as Line;
      buffer = buffer.slice(nl + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  return {
    send: (line) => socket.write(`${JSON.stringify({ protocol: 'loom-broker/2', ...line })}\n`),
    next: () => {
      const queued = lines.shift();
      return queued ? Promise.resolve(queued) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

const hold = (id: string, args: Record<string, unknown>, progress?: boolean) => ({
  id,
  op: 'run',
  command: 'long.hold',
  args,
  ...(progress === undefined ? {} : { progress }),
});

describe('listing rows carry the timeout the runner enforces', () => {
  it('each pack row says its timeoutMs: the override, else the pack’s, else 30 s; built-ins say none [CP-44, CP-45]', async () => {
    const c = open();
    c.send({ id: 'l1', op: 'list' });
    const listed = resultOf(await c.next());
    const timeouts = Object.fromEntries(
      ('commands' in listed ? listed.commands : []).map((r) => [r.id, r.timeoutMs]),
    );
    expect(timeouts).toMatchObject({ 'long.hold': 360_000, 'long.quick': 5_000, 'plain.echo': 30_000 });
    expect('loom.inspect' in timeouts && timeouts['loom.inspect']).toBeUndefined();
  });
});

describe('progress lines', () => {
  it('a run that asked gets progress lines before its usual answer: elapsed grows, output bytes count what it printed; one that did not ask gets none', async () => {
    // Two connections, each with its slot: the run without progress is in flight throughout.
    const quiet = open();
    const loud = open();
    const release = join(root, 'release');
    quiet.send(hold('q1', { bytes: 10, release, marker: `quiet-${process.pid}` }));
    loud.send(hold('r1', { bytes: 3000, release, marker: `loud-${process.pid}` }, true));
    const progress: Line[] = [];
    // Waits on the broker's lines, not on time: the third one that counts all 3000 bytes.
    while (progress.filter((p) => progressOf(p)?.outputBytes === 3000).length < 3) {
      const line = await loud.next();
      expect(line).not.toHaveProperty('ok');
      progress.push(line);
    }
    writeFileSync(release, '');
    let answer = await loud.next();
    while (!('ok' in answer)) answer = await loud.next();
    expect(progress.every((p) => p.protocol === 'loom-broker/2' && p.id === 'r1')).toBe(true);
    const elapsed = progress.map((p) => progressOf(p)?.elapsedMs ?? -1);
    expect(elapsed).toEqual([...elapsed].sort((a, b) => a - b));
    expect(new Set(elapsed).size).toBe(elapsed.length);
    // The first line comes once the run has been in flight one interval (a timer and the clock the
    // run's start was read from round to whole milliseconds apart: one interval can read 99).
    expect(elapsed[0]).toBeGreaterThanOrEqual(99);
    const bytes = progress.map((p) => progressOf(p)?.outputBytes ?? -1);
    expect(bytes).toEqual([...bytes].sort((a, b) => a - b));
    expect(Object.keys(answer).sort()).toEqual(['id', 'ok', 'protocol', 'result']);
    expect(answer).toMatchObject({ id: 'r1', ok: true, result: { ok: true, code: 'ok' } });
    expect(commandAnswerOf(answer).body).toMatchObject({ output: 'x'.repeat(3000) });
    // The quiet run was in flight as long, and its connection carries its answer only.
    expect(await quiet.next()).toMatchObject({ id: 'q1', ok: true, result: { ok: true } });
  });
});

describe('cancel', () => {
  it('stops a running pack command: its process group is gone, it answers failed (cancelled), and its audit row says cancelled', async () => {
    const marker = `cancel-me-${process.pid}`;
    const c = open();
    c.send(hold('r1', { bytes: 5, release: join(root, 'never'), marker }, true));
    // Running once its progress counts its output and its child exists.
    let line = await c.next();
    while (progressOf(line)?.outputBytes !== 5) line = await c.next();
    await until(() => processesWith(`${marker}-child`).length === 1, 'the command’s child to start');
    expect(processesWith(marker).length).toBe(2);

    // The connection's one slot is held by r1: the cancel is answered anyway.
    c.send({ id: 'x1', op: 'cancel', target: 'r1' });
    const answers: Line[] = [];
    while (answers.length < 2) {
      line = await c.next();
      if ('ok' in line) answers.push(line);
    }
    const byId = Object.fromEntries(answers.map((a) => [a.id, a]));
    expect(byId.x1).toEqual({ protocol: 'loom-broker/2', id: 'x1', ok: true, result: { cancelled: true } });
    expect(byId.r1 && commandAnswerOf(byId.r1)).toMatchObject({
      ok: false,
      code: 'failed',
      reason: 'cancelled',
      mayHaveLanded: false,
      body: { status: 'cancelled' },
    });
    await until(() => processesWith(marker).length === 0, `no process carrying ${marker}`);

    const run = (await store.tailAudit(20)).find((e) => e.command === 'long.hold' && e.phase === 'run');
    expect(run).toMatchObject({ outcome: 'cancelled', code: 'failed', reason: 'cancelled' });
    expect(run?.payload).toMatchObject({ run: { status: 'cancelled' } });
  });

  it('a run still waiting for a slot when cancelled begins cancelled: it starts no process, answers failed (cancelled, nothing landed) and is audited', async () => {
    const release = join(root, 'release');
    const c = open();
    c.send(hold('r1', { bytes: 1, release, marker: `first-${process.pid}` }, true));
    await c.next();
    // The connection's one slot is r1's: r2 waits, and is cancelled while it waits.
    c.send(hold('r2', { bytes: 1, release, marker: `second-${process.pid}` }));
    c.send({ id: 'x2', op: 'cancel', target: 'r2' });
    let line = await c.next();
    while (line.id !== 'x2') line = await c.next();
    expect(line).toMatchObject({ ok: true, result: { cancelled: true } });
    writeFileSync(release, '');
    const answers: Line[] = [];
    while (answers.length < 2) {
      line = await c.next();
      if ('ok' in line) answers.push(line);
    }
    expect(answers.map((a) => [a.id, commandAnswerOf(a).code, commandAnswerOf(a).reason ?? null])).toEqual([
      ['r1', 'ok', null],
      ['r2', 'failed', 'cancelled'],
    ]);
    expect(answers[1] && commandAnswerOf(answers[1])).toMatchObject({
      mayHaveLanded: false,
      body: { status: 'cancelled' },
    });
    expect(answers[1] && commandAnswerOf(answers[1]).body).toMatchObject({
      message: expect.stringMatching(/cancelled before it started; nothing ran/),
    });
    const rows = (await store.tailAudit(20)).filter((e) => e.command === 'long.hold');
    // r1 started and ran; r2 has a run row and no start row: no process was started for it.
    expect(rows.map((e) => [e.phase, e.outcome])).toEqual([
      ['start', 'started'],
      ['run', 'ok'],
      ['run', 'cancelled'],
    ]);
    expect(rows[2]?.payload).toMatchObject({ refused_before_run: 'cancelled' });
  });

  it('names a request of its own connection only: another connection’s run, an unknown id or one answered already is cancelled: false', async () => {
    const release = join(root, 'release');
    const owner = open();
    const other = open();
    owner.send(hold('r1', { bytes: 1, release, marker: `own-${process.pid}` }, true));
    await owner.next();
    other.send({ id: 'x1', op: 'cancel', target: 'r1' });
    expect(await other.next()).toMatchObject({ id: 'x1', ok: true, result: { cancelled: false } });
    writeFileSync(release, '');
    let answer = await owner.next();
    while (!('ok' in answer)) answer = await owner.next();
    expect(commandAnswerOf(answer)).toMatchObject({ ok: true, code: 'ok' });
    owner.send({ id: 'x2', op: 'cancel', target: 'r1' });
    expect(await owner.next()).toMatchObject({ id: 'x2', ok: true, result: { cancelled: false } });
  });

  it('a cancel without a target is a bad request', async () => {
    const c = open();
    c.send({ id: 'x1', op: 'cancel' });
    expect(await c.next()).toMatchObject({ id: 'x1', ok: false, error: { code: 'bad_request' } });
  });
});
