// commands-batch-rounds: a 16-call run_command batch of a command that takes 200 ms, against the
// ideal of 4 rounds (16 calls, 4 in flight). The host is a scripted FAKE broker on a real socket.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarize, writeResult } from '@harness/bench-utils';
import { createHostClient, createHostCommandTools, createRun } from '@harness/commands';
import { tempDir } from '@harness/test-utils';
import { startFakeBroker } from '../test/helpers/fake-broker';

const t = tempDir('commands-bench-');
const queuePath = join(t.path, 'q.sock');
writeFileSync(
  `${queuePath}.json`,
  JSON.stringify({
    commands: [{ id: 'slow.op', title: 't', help: 'h', inputs: {} }],
    behaviour: { 'slow.op': { sleepMs: 200 } },
  }),
);
const broker = await startFakeBroker(queuePath);
const config = {
  cliPath: '/unused',
  transport: { kind: 'broker' as const, socketPath: queuePath, client: 'socket' as const },
};
const client = createHostClient(config);
const [, runCommand] = createHostCommandTools({ config, client });
if (!runCommand) throw new Error('no run_command');
const run = createRun({ mode: 'disabled' });
const input = { calls: Array.from({ length: 16 }, () => ({ command: 'slow.op' })) };
await runCommand.execute(input, { run });

const samples: number[] = [];
for (let i = 0; i < 5; i++) {
  const start = performance.now();
  await runCommand.execute(input, { run });
  samples.push(performance.now() - start);
}
const stats = summarize(samples);
const ideal = 4 * 200;
writeResult('commands-batch-rounds', {
  unit: 'ms per 16-call batch',
  subject: { label: '16-call batch, 200 ms each, fake broker over a real socket', ...stats },
  anchor: { label: 'ideal: 4 rounds of 200 ms', median: ideal },
  ratio: stats.median / ideal,
  target: { ratioAtMost: 1.25 },
  pass: stats.median / ideal <= 1.25,
});
await client.close();
await broker.close();
t.cleanup();
