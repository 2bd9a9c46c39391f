// otel: one pack-command call (`bench.noop`, running `true`) through `harness serve` over stdio with
// OpenTelemetry export on (OTEL_EXPORTER_OTLP_ENDPOINT naming an OTLP/HTTP receiver in this process,
// which reads and drops what it is sent), against the same call through a serve without it. The
// ratio is what the span per call, its child spans and the metrics cost a call (docs/observability.md).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compareEach } from '@harness/bench-utils';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { benchDir, requireBin, serveStdio } from './fixture';

requireBin('otel');
// The receiver a collector would be: every export read to its end and answered at once.
let exports = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    exports++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const offDir = benchDir();
const onDir = benchDir();
const off = await serveStdio(offDir);
// Batches go out every 100 ms and metrics every second, so the run pays for exporting as it goes.
const on = await serveStdio(onDir, {
  extraEnv: {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_METRIC_EXPORT_INTERVAL: '1000',
  },
});

/** One call of bench.noop; throws unless it ran. */
async function call(client: Client): Promise<void> {
  const res = await client.callTool({
    name: 'run_read_command',
    arguments: { command: 'bench.noop', args: {} },
  });
  if (res.isError === true) throw new Error(`bench.noop failed: ${JSON.stringify(res.structuredContent)}`);
}

try {
  await compareEach({
    anchor: {
      label: 'run_read_command bench.noop (true, unconfined) through harness serve over stdio, no telemetry',
      fn: () => call(off.client),
    },
    subjects: [
      {
        name: 'otel',
        label:
          'the same call through harness serve with OTEL_EXPORTER_OTLP_ENDPOINT set (spans and metrics exported over OTLP/HTTP JSON)',
        fn: () => call(on.client),
        target: 1.05,
        notes:
          'per call with export on: a SERVER span, a CLIENT span for the broker round trip, an exec span, seven metric instruments; batches exported every 100 ms to a receiver in the bench process',
      },
    ],
    rounds: 30,
    inner: 10,
    warmup: 3,
  });
  if (exports === 0) throw new Error('the receiver got no export: telemetry was not on');
} finally {
  await off.client.close();
  await on.client.close();
  receiver.close();
  offDir.cleanup();
  onDir.cleanup();
}
