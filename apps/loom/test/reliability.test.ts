import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandAnswer } from '@harness/protocol';
import { brokerRun } from '@harness/protocol/client';
import { tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BrokerProcess, killBrokers, loom, startBrokerProcess } from './cli';

let t: { path: string; cleanup: () => void };
let instance: string;
let scope: string;
let queue: string;
const brokers: BrokerProcess[] = [];

beforeEach(async () => {
  t = tempDir('loom-rel-');
  writeFileSync(join(t.path, 'workspace.yaml'), 'version: 1\nagents:\n  - id: editor\n');
  scope = join(t.path, 'scope.yaml');
  writeFileSync(scope, 'run: burst\nagent: editor\n');
  instance = join(t.path, 'instance');
  queue = join(t.path, 'q.sock');
  expect((await loom(['init', instance, '--workspace', join(t.path, 'workspace.yaml')])).code).toBe(0);
});
afterEach(async () => {
  await killBrokers(brokers);
  t.cleanup();
});

async function broker(): Promise<BrokerProcess> {
  const b = await startBrokerProcess(instance, queue, scope);
  brokers.push(b);
  return b;
}

type Receipt = { loom_id: string; request_id: string; version: number; component_ids: string[] };
const composeArgs = (i: number) => ({
  request_id: `req-${i}`,
  components: [{ ref: `page:p${i}` }, { ref: `url:https://x.test/${i}` }],
});

describe('reliability with real processes, sockets and files', () => {
  it('SIGKILL in the middle of a burst loses no acknowledged receipt and duplicates none; retries return the originals [LA-97]', async () => {
    const b = await broker();
    const N = 120;
    const acked = new Map<string, Receipt>();
    let next = 0;
    let killed = false;
    const worker = async (): Promise<void> => {
      while (next < N) {
        const i = next++;
        const r = await brokerRun(queue, { command: 'loom.compose', args: composeArgs(i) });
        if (r.ok && r.value.ok) {
          acked.set(`req-${i}`, (r.value.body as { receipt: Receipt }).receipt);
          if (!killed && acked.size >= 25) {
            killed = true;
            b.child.kill('SIGKILL');
          }
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    await b.exited;
    expect(killed).toBe(true);
    expect(acked.size).toBeGreaterThanOrEqual(25);
    expect(acked.size).toBeLessThan(N);

    // A new broker on the same instance replaces the dead one's stale socket.
    await broker();
    const replies: CommandAnswer[] = [];
    for (let i = 0; i < N; i++) {
      const r = await brokerRun(queue, { command: 'loom.compose', args: composeArgs(i) });
      if (!r.ok) throw new Error(`retry ${i} failed: ${JSON.stringify(r.failure)}`);
      replies.push(r.value);
    }
    for (const [requestId, receipt] of acked) {
      const i = Number(requestId.slice(4));
      expect(replies[i]?.ok).toBe(true);
      const body = replies[i]?.body as { replayed: boolean; receipt: Receipt };
      expect(body.replayed, requestId).toBe(true);
      expect(body.receipt).toMatchObject(receipt);
    }
    const db = new Database(join(instance, 'loom.db'), { readonly: true });
    try {
      const receipts = db
        .prepare('SELECT request_id, COUNT(*) AS n FROM receipts GROUP BY request_id')
        .all() as { n: number }[];
      expect(receipts).toHaveLength(N);
      expect(receipts.every((r) => r.n === 1)).toBe(true);
      expect((db.prepare('SELECT COUNT(*) AS n FROM looms').get() as { n: number }).n).toBe(N);
      expect((db.prepare('SELECT COUNT(*) AS n FROM components').get() as { n: number }).n).toBe(2 * N);
    } finally {
      db.close();
    }
  });

  it('concurrent composes on one loom with the same expected version: exactly one wins [LA-41]', async () => {
    await broker();
    const first = await brokerRun(queue, {
      command: 'loom.compose',
      args: { request_id: 'base', components: [{ ref: 'page:a' }] },
    });
    const loomId = first.ok ? (first.value.body as { receipt: Receipt }).receipt.loom_id : '';
    const K = 8;
    const results = await Promise.all(
      Array.from({ length: K }, (_, i) =>
        loom(['command', 'run', 'loom.compose', '--args-json', '-', '--json', '--expect', '1'], {
          env: { LOOM_PAGE_RPC_QUEUE: queue },
          stdin: JSON.stringify({
            request_id: `c${i}`,
            loom_id: loomId,
            components: [{ ref: `page:c${i}` }],
          }),
        }),
      ),
    );
    const codes = results.map((r) => r.json().code).sort();
    expect(codes.filter((c) => c === 'ok')).toHaveLength(1);
    expect(codes.filter((c) => c === 'version_conflict')).toHaveLength(K - 1);
    const inspect = await brokerRun(queue, { command: 'loom.inspect', args: { loom_id: loomId } });
    expect(inspect.ok && (inspect.value.body as { version: number }).version).toBe(2);
  });

  it('two brokers on one instance still let exactly one of a racing pair win [LA-41]', async () => {
    await broker();
    const other = join(t.path, 'q2.sock');
    const scope2 = join(t.path, 'scope2.yaml');
    writeFileSync(scope2, 'run: other\nagent: editor\n');
    brokers.push(await startBrokerProcess(instance, other, scope2));
    const base = await brokerRun(queue, {
      command: 'loom.compose',
      args: { request_id: 'base', components: [{ ref: 'page:a' }] },
    });
    const loomId = base.ok ? (base.value.body as { receipt: Receipt }).receipt.loom_id : '';
    const race = await Promise.all(
      [queue, other, queue, other].map((q, i) =>
        brokerRun(q, {
          command: 'loom.compose',
          args: {
            request_id: `x${i}`,
            loom_id: loomId,
            expected_version: 1,
            components: [{ ref: 'page:b' }],
          },
        }),
      ),
    );
    const codes = race.map((r) => (r.ok ? r.value.code : 'lost'));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(1);
    expect(codes.filter((c) => c === 'version_conflict')).toHaveLength(3);
  });
});
