// approval-notify: a strict call's pending approval is created by a real broker, and its webhook
// announcement reaches a real HTTP receiver on 127.0.0.1 — the time from the approval's
// `created_at` to the request's arrival, median over RUNS calls. Anchor: a bare `fetch` POST of a
// body of the same size to the same receiver, timed from before the fetch to its arrival, in
// interleaved rounds. Target: median ≤ 200 ms.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarize, writeResult } from '@harness/bench-utils';
import { brokerRun } from '@harness/protocol/client';
import { type Received, startReceiver } from '@harness/test-utils/receiver';
import { startBroker } from '../src/api';
import { initInstance } from '../src/instance';

const RUNS = 40;
const WARMUP = 3;
const SECRET_ENV = 'HARNESS_BENCH_NOTIFY_SECRET';
process.env[SECRET_ENV] = 'bench-secret';

const dir = mkdtempSync(join(tmpdir(), 'host-notify-bench-'));
const receiver = await startReceiver();
const workspace = join(dir, 'workspace.yaml');
writeFileSync(
  workspace,
  `version: 1
sandbox_mode: off
notify:
  targets:
    - kind: webhook
      url: ${receiver.url('/hook')}
      secret_env: ${SECRET_ENV}
command_packs:
  - id: notes
    permission: strict
    commands:
      - id: write
        argv: [echo, 'wrote:{{line}}']
        effects: write
agents:
  - id: scribe
    grants: [notes.write]
`,
);
const instance = join(dir, 'instance');
await initInstance(instance, workspace);
const broker = await startBroker({
  instanceDir: instance,
  socketPath: join(dir, 'run', 'b.sock'),
  scope: { run: 'bench', agent: 'scribe' },
});

/** The next request the receiver gets after the `before`-th. */
const nextAfter = (before: number): Promise<Received> =>
  receiver.next((r) => receiver.received.indexOf(r) >= before);

let n = 0;
/** One new pending approval (a call with new arguments): ms from its `created_at` to the webhook's arrival. */
async function announced(): Promise<{ createdToReceived: number; callToReceived: number }> {
  const before = receiver.received.length;
  const arrived = nextAfter(before).then((r) => ({ r, at: Date.now(), t: performance.now() }));
  const t0 = performance.now();
  const r = await brokerRun(broker.socketPath, { command: 'notes.write', args: { line: `line ${n++}` } });
  if (!r.ok || r.value.reason !== 'approval_required')
    throw new Error(`unexpected answer: ${JSON.stringify(r)}`);
  const got = await arrived;
  const created = Date.parse(
    (JSON.parse(got.r.body) as { approval: { created_at: string } }).approval.created_at,
  );
  return { createdToReceived: got.at - created, callToReceived: got.t - t0 };
}

let body = '';
/** A bare POST of a body of the announcement's size: ms from before `fetch` to its arrival. */
async function bareFetch(): Promise<number> {
  const before = receiver.received.length;
  const arrived = nextAfter(before).then(() => performance.now());
  const t0 = performance.now();
  const res = await fetch(receiver.url('/anchor'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await res.body?.cancel();
  return (await arrived) - t0;
}

const subject: number[] = [];
const callSide: number[] = [];
const anchor: number[] = [];
for (let round = -WARMUP; round < RUNS; round++) {
  const a = await announced();
  if (body === '') body = receiver.received.at(-1)?.body ?? '';
  const b = await bareFetch();
  if (round >= 0) {
    subject.push(a.createdToReceived);
    callSide.push(a.callToReceived);
    anchor.push(b);
  }
}
await broker.close();
await receiver.close();
rmSync(dir, { recursive: true, force: true });

const s = summarize(subject);
const c = summarize(callSide);
const a = summarize(anchor);
const result = writeResult('approval-notify', {
  unit: 'milliseconds (median)',
  subject: { label: 'approval created_at → its signed webhook received (wall clock, ms resolution)', ...s },
  callToReceived: { label: 'call sent over the broker socket → webhook received', ...c },
  anchor: { label: 'bare fetch POST of the same body → received', ...a },
  ratio: s.median / a.median,
  target: { medianMsAtMost: 200 },
  pass: s.median <= 200,
  notes: `${RUNS} runs after ${WARMUP} warm-up, interleaved with the anchor; SQLite store; one webhook target; body ${body.length} bytes`,
});
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(
  `approval-notify: median ${s.median.toFixed(1)} ms (call → received ${c.median.toFixed(1)} ms); anchor bare fetch ${a.median.toFixed(2)} ms; ratio ${(s.median / a.median).toFixed(1)}×\n`,
);
