// serve-overhead: one pack command running `true`, called with run_read_command and run_command
// through `harness serve` with the real MCP SDK client (over stdio, and over streamable HTTP),
// interleaved in one run with its floor: `true` spawned detached with both pipes read.
import { compareEach } from '@harness/bench-utils';
import { benchDir, callNoop, requireBin, serveHttp, serveStdio, spawnTrue } from './fixture';

requireBin('serve-overhead');
const stdioDir = benchDir();
const httpDir = benchDir();
const stdio = await serveStdio(stdioDir);
const http = await serveHttp(httpDir);
const notes =
  'per call: MCP JSON-RPC, policy, the listing check, the broker socket, grant and schema checks, the pack runner spawning true, the audit record, measurement and shaping';
try {
  await compareEach({
    anchor: { label: "spawn('true'), detached, stdout and stderr piped and read", fn: spawnTrue },
    subjects: [
      {
        name: 'serve-overhead-read',
        label: 'run_read_command bench.noop (true) through harness serve, MCP stdio',
        fn: () => callNoop(stdio.client, 'run_read_command'),
        target: 1.5,
        notes,
      },
      {
        name: 'serve-overhead-write',
        label: 'run_command bench.noop (true) through harness serve, MCP stdio',
        fn: () => callNoop(stdio.client, 'run_command'),
        target: 1.5,
        notes,
      },
      {
        name: 'serve-overhead-http-read',
        label: 'run_read_command bench.noop (true) through harness serve, MCP streamable HTTP',
        fn: () => callNoop(http.client, 'run_read_command'),
        notes,
      },
      {
        name: 'serve-overhead-http-write',
        label: 'run_command bench.noop (true) through harness serve, MCP streamable HTTP',
        fn: () => callNoop(http.client, 'run_command'),
        notes,
      },
    ],
    rounds: 30,
    inner: 10,
    warmup: 3,
  });
} finally {
  await stdio.client.close();
  await http.stop();
  stdioDir.cleanup();
  httpDir.cleanup();
}
