// The protocol's bounds through the real broker: one oversized answer fails only its own call (the
// broker bounds every answer line before sending it), and a client refuses calls beyond its pending
// bound before sending them, so a call it reports lost was sent and got no answer.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANSWER_TOO_LARGE, MAX_ANSWER_LINE_BYTES, MAX_PENDING_REQUESTS } from '@harness/protocol';
import { type BrokerClient, createBrokerClient } from '@harness/protocol/client';
import { tempDir } from '@harness/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningBroker, startBroker } from '../src/api';
import { initInstance } from '../src/instance';

// 6 MB of NUL bytes is 36 MB of JSON (each NUL is written \u0000): over the 32 MiB answer cap,
// under the default 10 MiB output ceiling.
const WORKSPACE = `version: 1
command_packs:
  - id: flood
    permission: open
    commands:
      - id: zeros
        argv: [head, '-c', '6000000', /dev/zero]
        effects: read
      - id: slow
        argv: [sh, '-c', 'sleep 1; echo "slow $1 done"', sh, '{{n}}']
        effects: read
      - id: mark
        argv: [sh, '-c', 'sleep 3; touch "$1"', sh, '{{file}}']
        effects: write
agents:
  - id: reader
    grants: [pack:flood, flood.mark]
`;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let root = '';

async function broker(): Promise<RunningBroker> {
  const t = tempDir('bounds-');
  root = t.path;
  cleanups.push(t.cleanup);
  const workspace = join(t.path, 'workspace.yaml');
  writeFileSync(workspace, WORKSPACE);
  await initInstance(join(t.path, 'instance'), workspace);
  const b = await startBroker({
    instanceDir: join(t.path, 'instance'),
    socketPath: join(t.path, 'run', 'q.sock'),
    scope: { run: 'run-1', agent: 'reader' } as never,
  });
  cleanups.push(() => b.close());
  return b;
}

describe('the answer cap', () => {
  it('fails an over-cap answer alone, as answer_too_large, while other calls on the same connection succeed', async () => {
    const b = await broker();
    const client: BrokerClient = createBrokerClient({ socketPath: b.socketPath });
    cleanups.push(() => client.close());
    const slow = [1, 2, 3].map((n) => client.run({ command: 'flood.slow', args: { n: String(n) } }));
    const flood = await client.run({ command: 'flood.zeros', args: {} });
    expect(flood).toEqual({
      ok: true,
      value: {
        ok: false,
        id: 'flood.zeros',
        code: 'failed',
        reason: ANSWER_TOO_LARGE,
        // A read: the broker's answer said nothing could have landed, and the replacement keeps it.
        mayHaveLanded: false,
        completed: [],
        kind: 'failed',
        body: {
          message: `the answer is over the protocol's ${MAX_ANSWER_LINE_BYTES}-byte answer limit, so it was not sent (the command did run). Lower the command's max_output, or make it print less.`,
        },
      },
    });
    const answers = await Promise.all(slow);
    for (const [i, r] of answers.entries()) {
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      expect(r.value).toMatchObject({ ok: true, code: 'ok' });
      expect(JSON.stringify(r.value.body)).toContain(`slow ${i + 1} done`);
    }
    // Still the one connection: nothing was dropped.
    expect((await client.hello()).ok).toBe(true);
  });
});

describe("the client's pending bound", () => {
  it('refuses calls beyond it as busy before sending, so no call reported lost has run', {
    timeout: 30_000,
  }, async () => {
    const b = await broker();
    // The broker runs 32 calls of a connection at once, so unbounded this burst would take at least
    // 4 rounds of 3 s: past the timeout, calls still queued at the broker would read as lost and
    // then run. Bounded, one round is sent and answered well within it.
    const client = createBrokerClient({ socketPath: b.socketPath, timeoutMs: 10_000 });
    cleanups.push(() => client.close());
    const n = 4 * MAX_PENDING_REQUESTS;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        client.run({ command: 'flood.mark', args: { file: join(root, `mark-${i}`) } }),
      ),
    );
    const kinds = results.map((r) => (r.ok ? (r.value.ok ? 'ran' : r.value.code) : r.failure.kind));
    expect(kinds.filter((k) => k === 'ran')).toHaveLength(MAX_PENDING_REQUESTS);
    expect(kinds.filter((k) => k === 'busy')).toHaveLength(n - MAX_PENDING_REQUESTS);
    expect(kinds).not.toContain('lost');
    const marked = readdirSync(root).filter((f) => f.startsWith('mark-'));
    const ran = results.flatMap((r, i) => (r.ok && r.value.ok ? [`mark-${i}`] : []));
    expect(marked.sort()).toEqual(ran.sort());
  });
});
