// Audit under a broker killed with SIGKILL mid-flood: every acknowledged compose has its audit row,
// every process that started has a start row, and every start row has an end row or a reap event.
// A real broker process (startBroker from the sources) takes concurrent composes and pack writes
// (real `sh` processes that append to a file) over its real socket, and is killed with SIGKILL
// while they are in flight; a second broker starts on the instance, reaps, and the store is counted.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokerRun } from '@harness/protocol/client';
import type { Store } from '@harness/store';
import { openStoreTarget } from '@harness/store';
import { LINUX, needs, tempDir, until } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBroker, tailAudit } from '../src/api';
import { createCommandHost } from '../src/host';
import { initInstance, openStore, readInstance } from '../src/instance';
import { loadPackBackend } from '../src/packs-backend';
import { listRunning } from '../src/running';
import { resolveScope } from '../src/scope';
import { startBrokerProcess } from './broker-process';
import { writeLedgerWorkspace } from './ledger';

const SCOPE = { run: 'run-flood', agent: 'writer' };
const CALLS = 150;

let root: ReturnType<typeof tempDir>;
let instance: string;
let ledger: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  root = tempDir('host-audit-crash-');
  const written = writeLedgerWorkspace(root.path, {
    settings: 'permission: open\ntimeout: 30s',
    write: { id: 'touch', pattern: '^w[0-9]+$', after: '; sleep 0.3' },
    grants: '[w.touch]',
  });
  ledger = written.ledger;
  instance = join(root.path, 'instance');
  await initInstance(instance, written.workspace);
});

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  root.cleanup();
});

const brokerProcess = (queue: string) => startBrokerProcess(instance, queue, SCOPE, children);

needs(LINUX).describe('audit when the broker is killed mid-flood', () => {
  it('every acknowledged compose has its audit row; every started process a start row; every start row an end row or a reap event [SEC-9]', async () => {
    const queue = join(root.path, 'run', 'q.sock');
    const first = await brokerProcess(queue);
    const acked: string[] = [];
    let writesAnswered = 0;
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < CALLS; i++) {
      const requestId = `req-${i}`;
      calls.push(
        brokerRun(queue, {
          command: 'loom.compose',
          args: { request_id: requestId, components: [{ ref: `url:https://example.org/${i}` }] },
        }).then((r) => {
          if (r.ok && r.value.ok) acked.push(requestId);
        }),
      );
      calls.push(
        brokerRun(queue, { command: 'w.touch', args: { id: `w${i}` } }).then((r) => {
          if (r.ok) writesAnswered++;
        }),
      );
    }
    const lines = () => (existsSync(ledger) ? readFileSync(ledger, 'utf8').split('\n').length - 1 : 0);
    // Kill once some calls were answered and processes are running: mid-flood.
    await until(
      () => acked.length >= 40 && lines() >= 10,
      'forty composes acknowledged and ten commands run',
      {
        timeoutMs: 30_000,
        everyMs: 10,
      },
    );
    first.child.kill('SIGKILL');
    await first.exited;
    await Promise.all(calls);
    expect(acked.length).toBeGreaterThan(0);

    const second = await startBroker({ instanceDir: instance, socketPath: queue, scope: SCOPE });
    await second.close();

    const events = await tailAudit(instance, 10_000);
    const store = await openStore(instance);
    const receipts = await store.receipts(`${SCOPE.run}/agent:${SCOPE.agent}`, 10_000);
    await store.close();

    // Every acknowledged compose, and every committed one (acknowledged or not), has its row.
    const composeRows = new Set(
      events
        .filter((e) => e.command === 'loom.compose' && e.phase === 'run')
        .map((e) => e.payload.request_id),
    );
    const missingAcked = acked.filter((id) => !composeRows.has(id));
    const missingCommitted = receipts.map((r) => r.request_id).filter((id) => !composeRows.has(id));
    expect({ missingAcked, missingCommitted }).toEqual({ missingAcked: [], missingCommitted: [] });
    expect(receipts.length).toBeGreaterThanOrEqual(acked.length);

    // Every process that started wrote its line; each had a start row committed before it ran.
    const ran = new Set(readFileSync(ledger, 'utf8').split('\n').filter(Boolean));
    const starts = events.filter((e) => e.command === 'w.touch' && e.phase === 'start');
    expect(ran.size).toBeGreaterThan(0);
    expect(starts.length).toBeGreaterThanOrEqual(ran.size);

    // Every start row has an end row or a reap event with its call id.
    const ended = new Set(
      events
        .filter((e) => (e.phase === 'run' || e.phase === 'reap') && e.command === 'w.touch')
        .map((e) => e.payload.call_id),
    );
    const open = starts.map((e) => e.payload.call_id).filter((id) => !ended.has(id));
    expect(open).toEqual([]);
    // The flood was really cut: some calls never got their answer.
    expect(acked.length + writesAnswered).toBeLessThan(2 * CALLS);
    process.stdout.write(
      `audit flood: ${acked.length} composes acknowledged, ${receipts.length} committed, ${ran.size} processes started, ${starts.length} start rows, ${events.filter((e) => e.phase === 'reap').length} reap events\n`,
    );
  }, 90_000);
});

describe('a pack command whose start row cannot be committed', () => {
  it('does not start: the answer says so, no process ran, and no running record is left [SEC-9]', async () => {
    const info = readInstance(instance);
    const { backend, scopeWorkspace } = await loadPackBackend(info.workspaceFile, info.dir);
    const real = await openStoreTarget(info.store);
    // The real store, except that it refuses the one write that must precede the process.
    const store: Store = {
      ...real,
      appendAudit: async (event) => {
        if (event.phase === 'start') throw new Error('disk full');
        return real.appendAudit(event);
      },
    };
    const host = createCommandHost({ store, scope: resolveScope(SCOPE, scopeWorkspace), packs: backend });
    const answer = await host.run({ op: 'run', command: 'w.touch', args: { id: 'w1' } });
    expect(answer).toMatchObject({ ok: false, code: 'failed', reason: 'not_recorded', mayHaveLanded: false });
    expect((answer.body as { message: string }).message).toBe('w.touch was not started: disk full');
    expect(existsSync(ledger)).toBe(false);
    expect(listRunning(instance)).toEqual([]);
    const events = await real.tailAudit(10);
    expect(events.map((e) => [e.phase, e.command, e.code, e.reason])).toEqual([
      ['run', 'w.touch', 'failed', 'not_recorded'],
    ]);
    await backend.close?.();
    await real.close();
  }, 30_000);
});
