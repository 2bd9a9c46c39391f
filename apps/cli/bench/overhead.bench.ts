// serve-overhead: one pack command running `true`, called with run_read_command and run_command
// through `harness serve` with the real MCP SDK client (over stdio, and over streamable HTTP),
// interleaved in one run with its anchor: `true` spawned detached with both pipes read.
//
// Two pairs, each measured against its own anchor:
// - `serve-overhead-*`: `bench.noop`, unconfined (`sandbox: false`), against a plain spawn of `true`.
//   These carry the targets: what the harness adds to a command.
// - `serve-overhead-confined-*`: `confined.noop`, confined as every read command is by default
//   (bubblewrap), against bubblewrap started with the same command line around `true`: what the
//   harness adds to a confined command. The sandbox's own cost is `sandbox-spawn`'s (packages/exec).
//
// Each pair is timed beside its floor too: a plain MCP SDK server (spawn-server.mjs) whose one tool
// spawns the same command line the same way and answers, over the same stdio, to the same client.
// Any MCP server that runs a command pays that much; `ratioToFloor` is what serve adds above it.
import { compareEach } from '@harness/bench-utils';
import { detectSandbox } from '@harness/exec';
import {
  benchDir,
  bwrapTrueArgv,
  callNoop,
  callSpawnServer,
  plainStdio,
  requireBin,
  serveHttp,
  serveStdio,
  spawnBwrapTrue,
  spawnServer,
  spawnTrue,
} from './fixture';

requireBin('serve-overhead');
const stdioDir = benchDir();
const httpDir = benchDir();
const stdio = await serveStdio(stdioDir);
const http = await serveHttp(httpDir);
const floorServer = await plainStdio(spawnServer);
const floorLabel = (what: string) =>
  `a plain MCP SDK server over stdio whose one tool spawns ${what} detached, reads both pipes and answers`;
const notes =
  'per call: MCP JSON-RPC, policy, the listing check, the broker socket, grant and schema checks, the durable start record, the pack runner spawning true, the end record, measurement and shaping';
const rounds = { rounds: 30, inner: 10, warmup: 3 };
try {
  await compareEach({
    anchor: { label: "spawn('true'), detached, stdout and stderr piped and read", fn: spawnTrue },
    floor: { label: floorLabel('true'), fn: () => callSpawnServer(floorServer, ['true']) },
    subjects: [
      {
        name: 'serve-overhead-read',
        label: 'run_read_command bench.noop (true, unconfined) through harness serve, MCP stdio',
        fn: () => callNoop(stdio.client, 'run_read_command'),
        target: 1.5,
        notes,
      },
      {
        name: 'serve-overhead-write',
        label: 'run_command bench.noop (true, unconfined) through harness serve, MCP stdio',
        fn: () => callNoop(stdio.client, 'run_command'),
        target: 1.5,
        notes,
      },
      {
        name: 'serve-overhead-http-read',
        label: 'run_read_command bench.noop (true, unconfined) through harness serve, MCP streamable HTTP',
        fn: () => callNoop(http.client, 'run_read_command'),
        notes,
      },
      {
        name: 'serve-overhead-http-write',
        label: 'run_command bench.noop (true, unconfined) through harness serve, MCP streamable HTTP',
        fn: () => callNoop(http.client, 'run_command'),
        notes,
      },
    ],
    ...rounds,
  });
  const detection = detectSandbox();
  if (!detection.available || detection.mechanism !== 'bwrap') {
    const why = detection.available ? detection.mechanism : detection.reason;
    process.stdout.write(`serve-overhead-confined skipped: no bubblewrap here (${why})\n`);
  } else {
    const confinedNotes = `${notes}; the command confined by bubblewrap ${detection.version ?? ''}, the anchor bubblewrap with the same command line`;
    await compareEach({
      anchor: {
        label:
          'bwrap (the command line exec gives a default read command) around true, detached, both pipes read',
        fn: () => spawnBwrapTrue(detection.file, stdioDir.root),
      },
      floor: {
        label: floorLabel('the same bubblewrap command line around true'),
        fn: () => callSpawnServer(floorServer, bwrapTrueArgv(detection.file, stdioDir.root)),
      },
      subjects: [
        {
          name: 'serve-overhead-confined-read',
          label:
            'run_read_command confined.noop (true in the default read sandbox) through harness serve, MCP stdio',
          fn: () => callNoop(stdio.client, 'run_read_command', 'confined.noop'),
          notes: confinedNotes,
        },
        {
          name: 'serve-overhead-confined-write',
          label:
            'run_command confined.noop (true in the default read sandbox) through harness serve, MCP stdio',
          fn: () => callNoop(stdio.client, 'run_command', 'confined.noop'),
          notes: confinedNotes,
        },
      ],
      ...rounds,
    });
  }
} finally {
  await stdio.client.close();
  await floorServer.close();
  await http.stop();
  stdioDir.cleanup();
  httpDir.cleanup();
}
