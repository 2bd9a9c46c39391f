// serve-list: MCP tools/list and a list_commands call to `harness serve` over stdio, against
// tools/list of a plain SDK server with one tool, interleaved in one run.
import { compareEach } from '@harness/bench-utils';
import { benchDir, plainStdio, requireBin, serveStdio } from './fixture';

requireBin('serve-list');
const dir = benchDir();
const serve = await serveStdio(dir);
const plain = await plainStdio();
try {
  await compareEach({
    anchor: { label: 'tools/list of a plain MCP SDK server (one tool), stdio', fn: () => plain.listTools() },
    subjects: [
      {
        name: 'serve-list-tools',
        label: 'tools/list of harness serve, stdio',
        fn: () => serve.client.listTools(),
        target: 2,
      },
      {
        name: 'serve-list-commands',
        label: 'list_commands through harness serve, stdio (a fresh listing from the broker)',
        fn: async () => {
          const res = await serve.client.callTool({ name: 'list_commands', arguments: {} });
          const value = res.structuredContent as { status?: string } | undefined;
          if (value?.status !== 'ok') throw new Error(`list_commands failed: ${JSON.stringify(value)}`);
        },
        target: 2,
      },
    ],
    rounds: 30,
    inner: 20,
    warmup: 3,
  });
} finally {
  await serve.client.close();
  await plain.close();
  dir.cleanup();
}
