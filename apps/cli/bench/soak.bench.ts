// serve-soak: a long-lived `harness serve` under a steady mix of calls through the real SDK client
// over stdio (one MCP session, so one run): run_read_command, run_command, a batch of 4 and
// list_commands, in turn, all of a pack command running `true`. Reports the server's RSS after the
// warm-up and at the end, the store's bytes per call, and the per-call median at the start and end.
// To tell a leak from V8 sizing its heap, the server runs with --expose-gc and gc-probe.mjs: at both
// points it forces a full collection and reports the heap still in use, the heap V8 holds, and the
// young generation's size beside RSS.
// BENCH_SOAK_CALLS sets the number of measured calls (default 100 000; smaller for a local look),
// BENCH_SOAK_WARMUP the calls before the first measure (default 5000).
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { summarize, writeResult } from '@harness/bench-utils';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { benchDir, callBatch, callNoop, requireBin, serveStdio } from './fixture';

requireBin('serve-soak');
const calls = Number(process.env.BENCH_SOAK_CALLS ?? 100_000);
if (!Number.isSafeInteger(calls) || calls < 4000)
  throw new Error(`BENCH_SOAK_CALLS must be a whole number of at least 4000, found ${calls}`);
// V8 sizes its young generation by what survives its scavenges; on this mix it reaches its steady
// size (16 MiB semi-spaces on Node 20) within the first few thousand calls.
const warmup = Number(process.env.BENCH_SOAK_WARMUP ?? 5000);
const window = 1000;

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
  return kib / 1024;
}

function storeBytes(instance: string): number {
  let total = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      total += statSync(join(instance, `loom.db${suffix}`)).size;
    } catch {}
  }
  return total;
}

const mix: ((client: Client) => Promise<unknown>)[] = [
  (c) => callNoop(c, 'run_read_command'),
  (c) => callNoop(c, 'run_command'),
  (c) => callBatch(c, 'run_read_command', 4),
  async (c) => {
    const res = await c.callTool({ name: 'list_commands', arguments: {} });
    if ((res.structuredContent as { status?: string })?.status !== 'ok')
      throw new Error('list_commands failed');
  },
];

/** What the server holds after a forced full collection (gc-probe.mjs), in MiB. */
interface AfterGc {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  youngGeneration: number;
  external: number;
}

async function afterGc(pid: number, file: string): Promise<AfterGc> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  const deadline = performance.now() + 30_000;
  while (!existsSync(file)) {
    if (performance.now() > deadline) throw new Error('the server did not answer the gc probe');
    await new Promise((r) => setTimeout(r, 20));
  }
  const u = JSON.parse(readFileSync(file, 'utf8')) as {
    rss: number;
    heapUsed: number;
    heapTotal: number;
    external: number;
    spaces: { space_name: string; space_size: number }[];
  };
  const mib = (n: number) => n / 1024 / 1024;
  const young = u.spaces.find((x) => x.space_name === 'new_space')?.space_size ?? 0;
  return {
    rss: mib(u.rss),
    heapUsed: mib(u.heapUsed),
    heapTotal: mib(u.heapTotal),
    youngGeneration: mib(young),
    external: mib(u.external),
  };
}

const dir = benchDir();
const probeFile = join(dir.root, 'gc-probe.json');
const serve = await serveStdio(dir, {
  nodeArgs: ['--expose-gc', '--import', join(import.meta.dirname, 'gc-probe.mjs')],
  extraEnv: { HARNESS_BENCH_PROBE: probeFile },
});
try {
  let n = 0;
  const timed = async (count: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < count; i++, n++) {
      const start = performance.now();
      await (mix[n % mix.length] as (c: Client) => Promise<unknown>)(serve.client);
      out.push(performance.now() - start);
    }
    return out;
  };
  await timed(warmup);
  const rssStart = rssMiB(serve.pid);
  const gcStart = await afterGc(serve.pid, probeFile);
  const storeStart = storeBytes(dir.instance);
  const started = performance.now();
  const first = summarize(await timed(window));
  // Past the first window, RSS is sampled every window so a peak between the two ends shows too.
  let rssPeak = rssStart;
  let last = first;
  for (let left = calls - window; left > 0; left -= window) {
    last = summarize(await timed(Math.min(window, left)));
    rssPeak = Math.max(rssPeak, rssMiB(serve.pid));
  }
  const rssEnd = rssMiB(serve.pid);
  const gcEnd = await afterGc(serve.pid, probeFile);
  const storeEnd = storeBytes(dir.instance);
  const growth = rssEnd - rssStart;
  const ratio = last.median / first.median;
  writeResult('serve-soak', {
    unit: 'ms per call (median of a 1000-call window)',
    calls,
    warmupCalls: warmup,
    seconds: (performance.now() - started) / 1000,
    subject: { label: 'per-call median, last 1000 calls', ...last },
    anchor: { label: 'per-call median, first 1000 calls after the warm-up', ...first },
    ratio,
    rssMiB: { afterWarmup: rssStart, end: rssEnd, peak: rssPeak, growth },
    afterForcedGcMiB: {
      afterWarmup: gcStart,
      end: gcEnd,
      heapUsedGrowth: gcEnd.heapUsed - gcStart.heapUsed,
      rssGrowth: gcEnd.rss - gcStart.rss,
    },
    storeBytes: { afterWarmup: storeStart, end: storeEnd, perCall: (storeEnd - storeStart) / calls },
    target: { ratioAtMost: 1.1, rssGrowthMiBAtMost: 10 },
    pass: ratio <= 1.1 && growth <= 10,
    notes:
      'one MCP session over stdio; calls cycle run_read_command, run_command, a run_read_command batch of 4, list_commands; a batch counts as one call. rssMiB is sampled as is; afterForcedGcMiB after a full collection in the server (--expose-gc): heapUsed is what the server still holds, youngGeneration the new space V8 sized, which V8 grows and shrinks with the allocation rate',
  });
  process.stdout.write(
    `serve-soak: RSS ${rssStart.toFixed(1)} → ${rssEnd.toFixed(1)} MiB (peak ${rssPeak.toFixed(1)}), heap in use after GC ${gcStart.heapUsed.toFixed(1)} → ${gcEnd.heapUsed.toFixed(1)} MiB, median ${first.median.toFixed(2)} → ${last.median.toFixed(2)} ms, store ${((storeEnd - storeStart) / calls).toFixed(0)} B/call\n`,
  );
} finally {
  await serve.client.close();
  dir.cleanup();
}
