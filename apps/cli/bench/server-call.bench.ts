// server-call: `run_read_command everything.echo` through `harness serve` (stdio, the real SDK
// client) against the same call from an SDK client straight to server-everything over a persistent
// connection, beside the floor: a plain SDK server that forwards the call to its own persistent
// client of the same upstream (proxy-server.mjs). Any gateway pays the floor's second hop; what
// serve costs above it is the harness's own work. Interleaved in one run.
import { fileURLToPath } from 'node:url';
import { type Stats, sampleEach, writeResult } from '@harness/bench-utils';
import { resultOutcome } from '@harness/commands/mcp';
import { EVERYTHING } from '@harness/test-utils';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { benchDir, plainStdio, plainStdioArgs, requireBin, serveStdio } from './fixture';
import { acceptServers, requireServers, serversWorkspace } from './servers-fixture';

requireBin('server-call');
const [everything] = (await requireServers('server-call', [EVERYTHING])) as [string];
const proxyServer = fileURLToPath(new URL('./proxy-server.mjs', import.meta.url));

// The server runs as a user gets it by default: confined (bubblewrap where it works), echo declared read.
const dir = benchDir(
  serversWorkspace([
    { id: 'everything', args: [everything], extra: '    tools: { echo: { effects: read } }\n' },
  ]),
);
acceptServers(dir, [{ id: 'everything' }]);
const serve = await serveStdio(dir);
const direct = await plainStdio(everything);
// The proxy takes its upstream's argv after its own file.
const proxy = await plainStdioArgs(proxyServer, [process.execPath, everything]);

async function echoStraight(client: Client): Promise<void> {
  const res = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
  if (res.isError) throw new Error(`echo failed: ${JSON.stringify(res.content)}`);
}

async function echoThroughHarness(): Promise<void> {
  const res = await serve.client.callTool({
    name: 'run_read_command',
    arguments: { command: 'everything.echo', args: { message: 'hi' } },
  });
  const value = resultOutcome(res) as { outcome?: { ok?: boolean } } | undefined;
  if (value?.outcome?.ok !== true) throw new Error(`everything.echo failed: ${JSON.stringify(value)}`);
}

const TARGET = 1.5;
const sides = {
  direct: 'tools/call echo from an SDK client straight to server-everything (stdio, persistent)',
  floor:
    'a plain SDK server (stdio) forwarding tools/call echo to its persistent SDK client of server-everything',
  subject: 'run_read_command everything.echo through harness serve, MCP stdio (server confined by default)',
};
try {
  // The first call starts the server; the figures are for a running one, as the issue asks.
  await echoThroughHarness();
  const [anchor, floor, subject] = (await sampleEach(
    [{ fn: () => echoStraight(direct) }, { fn: () => echoStraight(proxy) }, { fn: echoThroughHarness }],
    { rounds: 30, inner: 10, warmup: 3 },
  )) as [Stats, Stats, Stats];
  const ratioToFloor = subject.median / floor.median;
  writeResult('server-call', {
    unit: 'ms per call',
    subject: { label: sides.subject, ...subject },
    anchor: { label: sides.direct, ...anchor },
    ratio: subject.median / anchor.median,
    floor: { label: sides.floor, ...floor, ratio: floor.median / anchor.median },
    ratioToFloor,
    target: { ratioToFloorAtMost: TARGET },
    pass: ratioToFloor <= TARGET,
    notes:
      'Per call through serve: MCP JSON-RPC to serve, policy, the broker socket, grant, tier and the argument check against the inputSchema, the durable start record, the upstream call, the end record, redaction, measurement and shaping.',
  });
} finally {
  await serve.client.close();
  await direct.close();
  await proxy.close();
  dir.cleanup();
}
