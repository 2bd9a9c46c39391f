// End to end with the real bin: a pack command's process group outlives `loom broker start` killed
// with SIGKILL, and the next `loom broker start` on the instance kills it before serving and says so
// in the audit log (docs/host.md, "Commands outliving a crashed broker").
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokerRun } from '@harness/protocol/client';
import { LINUX, needs, tempDir, until } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type BrokerProcess, killBrokers, loom, startBrokerProcess } from './cli';

let t: { path: string; cleanup: () => void };
let instance: string;
let scope: string;
let queue: string;
const brokers: BrokerProcess[] = [];
const groups = new Set<number>();

beforeEach(async () => {
  t = tempDir('loom-reap-');
  writeFileSync(
    join(t.path, 'workspace.yaml'),
    `version: 1
command_packs:
  - id: slow
    # Unconfined: a confined command (pid namespace, --die-with-parent) dies with its broker at once.
    sandbox: false
    commands:
      - id: hang
        argv: [sh, -c, 'trap "" TERM; sleep 60 & sleep 60']
        effects: read
agents:
  - id: reader
    grants: [pack:slow]
`,
  );
  scope = join(t.path, 'scope.yaml');
  writeFileSync(scope, 'run: crash\nagent: reader\n');
  instance = join(t.path, 'instance');
  queue = join(t.path, 'q.sock');
  expect((await loom(['init', instance, '--workspace', join(t.path, 'workspace.yaml')])).code).toBe(0);
});
afterEach(async () => {
  await killBrokers(brokers);
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {}
  }
  groups.clear();
  t.cleanup();
});

async function broker(): Promise<BrokerProcess> {
  const b = await startBrokerProcess(instance, queue, scope);
  brokers.push(b);
  return b;
}

/** Live (non-zombie) members of group `pgid`, through /proc. */
function members(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) === pgid && f[0] !== 'Z' && f[0] !== 'X') out.push(Number(entry));
    } catch {}
  }
  return out;
}

/** The records in `<instance>/running/records.db`, as the broker wrote them. */
function runningRecords(): { call_id: string; record: string }[] {
  const file = join(instance, 'running', 'records.db');
  if (!existsSync(file)) return [];
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const table = db.prepare("SELECT name FROM sqlite_master WHERE name = 'running'").get();
    return table === undefined
      ? []
      : (db.prepare('SELECT call_id, record FROM running').all() as { call_id: string; record: string }[]);
  } finally {
    db.close();
  }
}

needs(LINUX).describe('a crashed broker', () => {
  it('leaves no command running past the next `loom broker start`, and the reap is in the audit log', async () => {
    const first = await broker();
    const call = brokerRun(queue, { command: 'slow.hang', args: {} });
    // The record names the call; the process group is written into it once the command is spawned.
    const pgid = await until(
      () => {
        const row = runningRecords()[0];
        if (row === undefined) return undefined;
        const record = JSON.parse(row.record) as { callId: string; pgid: number | null };
        expect(record.callId).toBe(row.call_id);
        return typeof record.pgid === 'number' ? record.pgid : undefined;
      },
      'the recorded process group',
      10_000,
    );
    groups.add(pgid);
    const before = await until(
      () => {
        const m = members(pgid);
        return m.length >= 3 ? m : undefined;
      },
      'sh and both sleeps',
      10_000,
    );

    first.child.kill('SIGKILL');
    await first.exited;
    expect((await call).ok).toBe(false);
    // Nothing kills the group while no broker runs: that nothing happens is what is tested, and no
    // event marks it, so the group is looked at again after a while.
    await new Promise((r) => setTimeout(r, 300));
    expect(members(pgid).sort()).toEqual(before.sort());

    await broker();
    await until(() => members(pgid).length === 0, 'the group to be gone', 3_000);
    expect(runningRecords()).toEqual([]);

    const audit = await loom(['audit', 'tail', '--instance', instance, '--json']);
    expect(audit.code).toBe(0);
    const events = (
      audit.json() as { events: { action: string; command: string; payload: { pgid?: number } }[] }
    ).events;
    const reaps = events.filter((e) => e.action === 'host:reap');
    expect(reaps.map((e) => [e.command, e.payload.pgid])).toEqual([['slow.hang', pgid]]);
  });
});
