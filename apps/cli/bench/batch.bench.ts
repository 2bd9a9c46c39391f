// serve-batch: one run_read_command batch of 16 calls of `true` through `harness serve` (at most 4
// in flight), against 4 sequential single calls of the same command, interleaved in one run.
import { compare } from '@harness/bench-utils';
import { benchDir, callBatch, callNoop, requireBin, serveStdio } from './fixture';

requireBin('serve-batch');
const dir = benchDir();
const serve = await serveStdio(dir);
try {
  await compare({
    name: 'serve-batch',
    unit: 'ms',
    subject: {
      label: 'run_read_command batch of 16 × bench.noop (true), harness serve over MCP stdio',
      fn: () => callBatch(serve.client, 'run_read_command', 16),
    },
    anchor: {
      label: '4 sequential run_read_command calls of bench.noop, same server',
      fn: async () => {
        for (let i = 0; i < 4; i++) await callNoop(serve.client, 'run_read_command');
      },
    },
    rounds: 30,
    inner: 3,
    warmup: 3,
    target: 1.3,
    notes: '16 calls at most 4 in flight are 4 rounds: the batch should cost what 4 single calls cost',
  });
} finally {
  await serve.client.close();
  dir.cleanup();
}
