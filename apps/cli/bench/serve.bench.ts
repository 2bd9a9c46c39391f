// cli-serve-read: `harness serve` answering run_read_command of a trivial command (the example
// workspace's echo.argv) through the real MCP SDK client over stdio, against running that same
// command directly (node -e … via child_process) in the same run. Needs dist/ (pnpm build).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, writeResult } from '@harness/bench-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'harness.js');
if (!existsSync(bin)) {
  process.stdout.write(`cli-serve-read skipped: ${bin} is missing; run pnpm build first\n`);
  process.exit(0);
}

const root = mkdtempSync(join(tmpdir(), 'harness-bench-'));
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [bin, 'serve', '--instance', join(root, 'instance'), '--heartbeat', '0'],
  env: { PATH: process.env.PATH ?? '', HOME: root, NO_COLOR: '1' },
  stderr: 'ignore',
});
const client = new Client({ name: 'harness-bench', version: '0.0.0' });
await client.connect(transport);

const program = 'process.stdout.write(JSON.stringify(process.argv.slice(1)))';
const viaServe = async () => {
  const res = await client.callTool({
    name: 'run_read_command',
    arguments: { command: 'echo.argv', args: { value: 'hello' } },
  });
  const value = res.structuredContent as { status?: string } | undefined;
  if (value?.status !== 'executed') throw new Error(`run_read_command failed: ${JSON.stringify(res)}`);
};
const direct = () =>
  new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', program, '--', 'hello'],
      { env: { PATH: process.env.PATH ?? '' } },
      (error) => (error ? reject(error) : resolve()),
    );
  });

try {
  const result = (await compare({
    name: 'cli-serve-read',
    unit: 'ms',
    subject: {
      label: 'harness serve: run_read_command echo.argv via the MCP SDK client over stdio',
      fn: viaServe,
    },
    anchor: { label: 'the same node -e command spawned directly (child_process.execFile)', fn: direct },
    rounds: 15,
    inner: 3,
    warmup: 3,
    notes:
      'per call: MCP JSON-RPC over stdio, the run catalog read, the broker socket, the pack runner spawning node',
  })) as Record<string, unknown> & { subject: { median: number }; anchor: { median: number }; ratio: number };
  const overheadMs = result.subject.median - result.anchor.median;
  writeResult('cli-serve-read', { ...result, overheadMs });
  process.stdout.write(
    `cli-serve-read: serve ${result.subject.median.toFixed(1)} ms, direct ${result.anchor.median.toFixed(1)} ms, overhead ${overheadMs.toFixed(1)} ms per call, ratio ${result.ratio.toFixed(2)}\n`,
  );
} finally {
  await client.close();
  rmSync(root, { recursive: true, force: true });
}
