// Commands must not outlive a crashed broker past the next broker start. A broker killed with
// SIGKILL runs no exit hook, so @harness/exec cannot kill its children's groups and their timeouts
// never fire; the host records each running call in `<instance>/running/records.db` (older brokers:
// one JSON file per record beside it) and the next broker reaps it. These tests use real processes:
// a real broker process killed with SIGKILL, real `sh` and `sleep` children, /proc to see who is
// alive, and the real SQLite file.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokerRun } from '@harness/protocol/client';
import { LINUX, needs, tempDir, until } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type RunningBroker, startBroker, tailAudit } from '../src/api';
import { initInstance, openStore } from '../src/instance';
import {
  listRunning,
  openRunningLog,
  processStartTime,
  REAP_ACTION,
  REAP_ACTOR,
  RUNNING_DB,
  RUNNING_DIR,
  type RunningRecord,
  reapRunning,
} from '../src/running';
import { startBrokerProcess } from './broker-process';

const WORKSPACE = `version: 1
command_packs:
  - id: slow
    timeout: 30s
    # Unconfined: a confined command (pid namespace, --die-with-parent) dies with its broker at once.
    sandbox: false
    commands:
      - id: hang
        argv: [sh, -c, 'trap "" TERM; sleep 60 & sleep 60']
        effects: read
      - id: quick
        argv: [sh, -c, 'echo done']
        effects: read
agents:
  - id: reader
    grants: [pack:slow]
`;
const SCOPE = { run: 'run-reap', agent: 'reader' };

let root: ReturnType<typeof tempDir>;
let instance: string;
const children: ChildProcess[] = [];
const groups = new Set<number>();
const brokers: RunningBroker[] = [];

beforeEach(async () => {
  root = tempDir('host-reap-');
  const workspace = join(root.path, 'workspace.yaml');
  writeFileSync(workspace, WORKSPACE);
  instance = join(root.path, 'instance');
  await initInstance(instance, workspace);
});

afterEach(async () => {
  for (const b of brokers.splice(0)) await b.close();
  // Whatever a failing test left running is not left for the machine.
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {}
  }
  groups.clear();
  for (const c of children.splice(0)) c.kill('SIGKILL');
  root.cleanup();
});

/** Fields of /proc/<pid>/stat from the state on; undefined when the process is gone. */
function stat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Live (non-zombie) members of group `pgid`, through /proc. */
function members(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = stat(Number(entry));
    if (f && Number(f[2]) === pgid && f[0] !== 'Z' && f[0] !== 'X') out.push(Number(entry));
  }
  return out;
}

const runningDir = () => join(instance, RUNNING_DIR);
const runningDb = () => join(runningDir(), RUNNING_DB);
/** The names of the running records: `records.db#<call id>` for a row, the file name for a file. */
const records = (): string[] => listRunning(instance).map((r) => r.name);
const recordOf = (name: string): RunningRecord | undefined =>
  listRunning(instance).find((r) => r.name === name)?.record;

const brokerProcess = (queue: string) => startBrokerProcess(instance, queue, SCOPE, children);

/** A process in its own group (like a command exec runs), tracked for cleanup. */
function detachedSleep(): ChildProcess & { pid: number } {
  const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  if (child.pid === undefined) throw new Error('sleep did not start');
  children.push(child);
  groups.add(child.pid);
  return child as ChildProcess & { pid: number };
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true', [], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return child.pid as number;
}

/** A record file as an older broker wrote it, one per record. */
function writeRecord(record: RunningRecord): string {
  const file = join(runningDir(), `${record.callId ?? record.pgid}.json`);
  ensureRunningDir();
  writeFileSync(file, JSON.stringify(record));
  return file;
}

/** A row of records.db as another broker would have left it; returns its record name. */
function writeRow(callId: string, record: RunningRecord | string): string {
  // The log creates the database with its schema; the row is written as the other broker did.
  const log = openRunningLog(instance);
  log.record({ callId, commandId: 'slow.hang', run: 'run-old', actor: 'agent:reader' });
  log.close();
  const db = new Database(runningDb());
  try {
    db.prepare('UPDATE running SET record = ? WHERE call_id = ?').run(
      typeof record === 'string' ? record : JSON.stringify(record),
      callId,
    );
  } finally {
    db.close();
  }
  return `${RUNNING_DB}#${callId}`;
}

function ensureRunningDir(): void {
  mkdirSync(runningDir(), { recursive: true, mode: 0o700 });
}

const reapEvents = async () => (await tailAudit(instance, 100)).filter((e) => e.action === REAP_ACTION);

needs(LINUX).describe('a command outliving a crashed broker', () => {
  // Two broker starts, a kill and a group reap: at a CI load of 10-30 this takes far longer than
  // the 2 s it takes idle, so its deadlines are generous (each ends on an event, never a sleep).
  it('survives SIGKILL of its broker, and the next broker start kills its whole group and audits it', async () => {
    const queue = join(root.path, 'run', 'q.sock');
    const first = await brokerProcess(queue);
    // The call never gets an answer: the broker dies mid-run.
    const call = brokerRun(queue, { command: 'slow.hang', args: {} });

    const name = await until(
      () => {
        const first = listRunning(instance)[0];
        return first?.record?.pid == null ? undefined : first.name;
      },
      'the running record with its process',
      30_000,
    );
    const record = recordOf(name) as RunningRecord & { pid: number; pgid: number };
    groups.add(record.pgid);
    expect(record).toMatchObject({ version: 2, pgid: record.pid, commandId: 'slow.hang', run: 'run-reap' });
    expect(name).toBe(`${RUNNING_DB}#${record.callId}`);
    expect(record.owner.pid).toBe(first.child.pid);
    expect(record.startTime).toBe(stat(record.pid)?.[19]);
    expect((statSync(runningDb()).mode & 0o777).toString(8)).toBe('600');
    expect((statSync(runningDir()).mode & 0o777).toString(8)).toBe('700');
    // sh and both sleeps.
    const before = await until(
      () => {
        const m = members(record.pgid);
        return m.length >= 3 ? m : undefined;
      },
      'sh and both sleeps',
      30_000,
    );

    first.child.kill('SIGKILL');
    await first.exited;
    expect((await call).ok).toBe(false);
    // Nothing killed them: the broker's exit hooks never ran, and its timeout died with it. What is
    // tested is that nothing happens, which no event marks: the group is looked at again after a while.
    await new Promise((r) => setTimeout(r, 300));
    expect(members(record.pgid).sort()).toEqual(before.sort());
    expect(records()).toEqual([name]);

    const second = await startBroker({ instanceDir: instance, socketPath: queue, scope: SCOPE });
    brokers.push(second);
    // startBroker waited for the group to go; poll briefly anyway so a slow kernel does not flake.
    await until(() => members(record.pgid).length === 0, 'the group to be gone', 15_000);
    for (const pid of before) {
      // Gone, or at most a zombie (runs nothing) where PID 1 does not reap orphans.
      expect(['Z', 'X', undefined]).toContain(stat(pid)?.[0]);
    }
    expect(records()).toEqual([]);
    const events = await reapEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      run: 'run-reap',
      actor: REAP_ACTOR,
      command: 'slow.hang',
      phase: 'reap',
      outcome: 'reaped',
      payload: {
        pid: record.pid,
        pgid: record.pgid,
        start_time: record.startTime,
        verified_by: 'proc-start-time',
        signal: 'SIGKILL',
        group_gone: true,
        agent_actor: 'agent:reader',
        call_id: record.callId,
      },
    });
    // The call's start event, committed before the process started, carries the same call id.
    const starts = (await tailAudit(instance, 100)).filter((e) => e.phase === 'start');
    expect(starts.map((e) => [e.command, e.outcome, e.payload.call_id])).toEqual([
      ['slow.hang', 'started', record.callId],
    ]);

    // The new broker serves, and its own runs leave no record behind once they settle.
    const ran = await brokerRun(queue, { command: 'slow.quick', args: {} });
    expect(ran.ok && ran.value.ok).toBe(true);
    expect(records()).toEqual([]);
  }, 90_000);
});

needs(LINUX).describe('reaping stale records', () => {
  const base = (over: Partial<RunningRecord>): RunningRecord => ({
    version: 1,
    pid: null,
    pgid: null,
    startTime: null,
    owner: { pid: 0, startTime: '1' },
    commandId: 'slow.hang',
    run: 'run-old',
    actor: 'agent:reader',
    startedAt: new Date().toISOString(),
    ...over,
  });

  async function reap() {
    const store = await openStore(instance);
    try {
      return await reapRunning(instance, store);
    } finally {
      await store.close();
    }
  }

  it('deletes a record whose process is gone, signalling nothing, once its reap event is recorded', async () => {
    const pid = await deadPid();
    const owner = await deadPid();
    const file = writeRecord(
      base({ pid, pgid: pid, startTime: '12345', owner: { pid: owner, startTime: '1' } }),
    );
    const results = await reap();
    expect(results.map((r) => r.outcome)).toEqual(['gone']);
    expect(() => statSync(file)).toThrow();
    expect((await reapEvents()).map((e) => [e.outcome, e.command, e.payload.pid])).toEqual([
      ['gone', 'slow.hang', pid],
    ]);
  });

  it('deletes a record whose pid now belongs to a process that started at another time, and leaves that process alone', async () => {
    const stranger = detachedSleep();
    const actual = processStartTime(stranger.pid);
    expect(actual).toMatch(/^\d+$/);
    writeRow(
      'call-reused',
      base({
        version: 2,
        callId: 'call-reused',
        pid: stranger.pid,
        pgid: stranger.pid,
        startTime: String(Number(actual) - 1), // our process, long gone, had this pid before
        owner: { pid: await deadPid(), startTime: '1' },
      }),
    );
    const results = await reap();
    expect(results.map((r) => r.outcome)).toEqual(['reused']);
    expect(records()).toEqual([]);
    expect(members(stranger.pid)).toEqual([stranger.pid]);
    expect((await reapEvents()).map((e) => [e.outcome, e.payload.signal])).toEqual([['reused', undefined]]);
  });

  it('reaps a group whose leader still runs with the recorded start time', async () => {
    const leader = detachedSleep();
    writeRow(
      'call-reaped',
      base({
        version: 2,
        callId: 'call-reaped',
        pid: leader.pid,
        pgid: leader.pid,
        startTime: processStartTime(leader.pid) as string,
        owner: { pid: await deadPid(), startTime: '1' },
      }),
    );
    const results = await reap();
    expect(results.map((r) => [r.outcome, r.groupGone])).toEqual([['reaped', true]]);
    expect(members(leader.pid)).toEqual([]);
    expect(records()).toEqual([]);
    expect((await reapEvents()).map((e) => [e.command, e.run, e.payload.pgid])).toEqual([
      ['slow.hang', 'run-old', leader.pid],
    ]);
  });

  it('leaves the records of a broker that still runs (two brokers on one instance)', async () => {
    const leader = detachedSleep();
    const name = writeRow(
      'call-alive',
      base({
        version: 2,
        callId: 'call-alive',
        pid: leader.pid,
        pgid: leader.pid,
        startTime: processStartTime(leader.pid) as string,
        owner: { pid: process.pid, startTime: processStartTime(process.pid) as string },
      }),
    );
    const results = await reap();
    expect(results.map((r) => r.outcome)).toEqual(['owner_alive']);
    expect(records()).toEqual([name]);
    expect(members(leader.pid)).toEqual([leader.pid]);
  });

  it('without a recorded start time (no /proc where it was written) reaps only a group kill(-pgid, 0) reaches', async () => {
    const leader = detachedSleep();
    const gone = await deadPid();
    const owner = { pid: await deadPid(), startTime: null };
    writeRecord(base({ pid: leader.pid, pgid: leader.pid, startTime: null, owner }));
    writeRecord(base({ pid: gone, pgid: gone, startTime: null, owner }));
    const results = await reap();
    const by = new Map(results.map((r) => [r.record?.pgid, r]));
    expect(by.get(leader.pid)?.outcome).toBe('reaped');
    expect(by.get(gone)?.outcome).toBe('gone');
    expect(members(leader.pid)).toEqual([]);
    expect((await reapEvents()).map((e) => [e.outcome, e.payload.verified_by])).toEqual(
      expect.arrayContaining([
        ['reaped', 'kill-0'],
        ['gone', undefined],
      ]),
    );
    expect(records()).toEqual([]);
  });

  it('deletes a file that is not a record, and records that it did', async () => {
    ensureRunningDir();
    writeFileSync(join(runningDir(), '999.json'), '{"version": 1, "pid": "x"');
    expect((await reap()).map((r) => r.outcome)).toEqual(['invalid']);
    expect(records()).toEqual([]);
    expect((await reapEvents()).map((e) => [e.outcome, e.command, e.payload])).toEqual([
      ['invalid', '*', { file: '999.json' }],
    ]);
  });

  it('deletes a row that is not a record, and records that it did', async () => {
    writeRow('call-garbled', '{"version": 2, "pid": ');
    expect((await reap()).map((r) => r.outcome)).toEqual(['invalid']);
    expect(records()).toEqual([]);
    expect((await reapEvents()).map((e) => [e.outcome, e.command, e.payload])).toEqual([
      ['invalid', '*', { file: `${RUNNING_DB}#call-garbled` }],
    ]);
  });

  it('records a call whose broker died before its process was recorded, as unstarted', async () => {
    writeRow(
      'call-00000000deadbeef',
      base({ version: 2, callId: 'call-00000000deadbeef', owner: { pid: await deadPid(), startTime: '1' } }),
    );
    expect((await reap()).map((r) => r.outcome)).toEqual(['unstarted']);
    expect(records()).toEqual([]);
    expect((await reapEvents()).map((e) => [e.outcome, e.payload.call_id, e.payload.pid])).toEqual([
      ['unstarted', 'call-00000000deadbeef', null],
    ]);
  });

  it('keeps a record whose reap event cannot be recorded, for the next broker start', async () => {
    const row = writeRow(
      'call-00000000feedf00d',
      base({ version: 2, callId: 'call-00000000feedf00d', owner: { pid: await deadPid(), startTime: '1' } }),
    );
    const file = writeRecord(
      base({ version: 2, callId: 'call-00000000feedf00e', owner: { pid: await deadPid(), startTime: '1' } }),
    );
    const store = await openStore(instance);
    await store.close();
    // A closed store refuses every write: the events are not recorded, so the records stay.
    expect((await reapRunning(instance, store)).map((r) => r.outcome)).toEqual(['unstarted', 'unstarted']);
    expect(records()).toEqual(['call-00000000feedf00e.json', row]);
    expect((await reap()).map((r) => r.outcome)).toEqual(['unstarted', 'unstarted']);
    expect(records()).toEqual([]);
    expect(() => statSync(file)).toThrow();
  });
});

needs(LINUX).describe('the running log', () => {
  const call = { callId: 'call-0123456789abcdef', commandId: 'slow.hang', run: 'r', actor: 'agent:reader' };
  const name = `${RUNNING_DB}#${call.callId}`;

  it('writes the record before the spawn, adds the group at it (database 0600 in a 0700 directory), and its release removes it', () => {
    const log = openRunningLog(instance);
    try {
      const track = log.record(call);
      expect(records()).toEqual([name]);
      expect(recordOf(name)).toMatchObject({ version: 2, callId: call.callId, pid: null, pgid: null });
      expect((statSync(runningDb()).mode & 0o777).toString(8)).toBe('600');
      expect((statSync(runningDir()).mode & 0o777).toString(8)).toBe('700');
      const child = detachedSleep();
      track.spawned({ pid: child.pid, pgid: child.pid });
      expect(records()).toEqual([name]);
      expect(recordOf(name)).toMatchObject({
        pid: child.pid,
        pgid: child.pid,
        startTime: stat(child.pid)?.[19],
        owner: { pid: process.pid, startTime: stat(process.pid)?.[19] },
        commandId: 'slow.hang',
      });
      track.release();
      expect(records()).toEqual([]);
    } finally {
      log.close();
    }
  });

  it('does not create the database before the first record', () => {
    const log = openRunningLog(instance);
    log.close();
    expect(() => statSync(runningDb())).toThrow();
  });

  it('release leaves a record that another broker wrote', () => {
    const log = openRunningLog(instance);
    try {
      const track = log.record(call);
      const other = { ...(recordOf(name) as RunningRecord), owner: { pid: 1, startTime: '1' } };
      const db = new Database(runningDb());
      db.prepare('UPDATE running SET record = ? WHERE call_id = ?').run(JSON.stringify(other), call.callId);
      db.close();
      track.release();
      expect(records()).toEqual([name]);
    } finally {
      log.close();
    }
  });

  it('fails with running_record when the record cannot be written', () => {
    writeFileSync(join(instance, RUNNING_DIR), 'a file where the directory should be');
    const log = openRunningLog(instance);
    expect(() => log.record(call)).toThrow(expect.objectContaining({ code: 'running_record' }));
    log.close();
  });
});
