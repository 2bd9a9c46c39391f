// serve-soak: a long-lived `harness serve` under a steady mix of calls through the real SDK client
// over stdio (one MCP session, so one run): run_read_command, run_command, a batch of 4 and
// list_commands, in turn, all of a pack command running `true`. The server is two processes: `serve`
// itself, which holds the MCP server, the run and the embedded broker with its store, and the
// broker's spawner, a small Node process that starts the pack commands (docs/exec.md, "Spawner").
// For each, the result reports RSS after the warm-up and at the end (the medians of its readings over
// the first and the last 1000-call window, and the extremes between), and what its heap still holds
// after a forced full collection at both points: both run with --expose-gc and gc-probe.mjs, which
// tell a leak (heap in use grows) from V8 sizing its heap (the young generation) and from memory
// outside the heap (RSS grows while the heap does not). Beside them: the store's
// bytes per call and the per-call median at the start and the end.
// BENCH_SOAK_CALLS sets the number of measured calls (default 100 000; smaller for a local look),
// BENCH_SOAK_WARMUP the calls before the first measure (default 5000).
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { summarize, writeResult } from '@harness/bench-utils';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { benchDir, callBatch, callNoop, requireBin, serveStdio } from './fixture';

requireBin('serve-soak');
const calls = Number(process.env.BENCH_SOAK_CALLS ?? 100_000);
if (!Number.isSafeInteger(calls) || calls < 4000 || calls % 1000 !== 0)
  throw new Error(`BENCH_SOAK_CALLS must be a multiple of 1000, at least 4000; found ${calls}`);
// V8 sizes its young generation by what survives its scavenges; on this mix it reaches its steady
// size (16 MiB semi-spaces on Node 20) within the first few thousand calls.
const warmup = Number(process.env.BENCH_SOAK_WARMUP ?? 5000);
const window = 1000;
// RSS is read every 100 calls; a window's RSS is the median of its ten readings, so one reading taken
// just after V8 gave its young generation back (or just before a scavenge) does not decide the result.
const sampleEvery = 100;

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
  return kib / 1024;
}

/** The server's spawner: its child whose program is the spawner's (packages/exec/src/spawner.ts). */
function spawnerPid(serve: number): number {
  const found: number[] = [];
  for (const task of readdirSync(`/proc/${serve}/task`)) {
    for (const pid of readFileSync(`/proc/${serve}/task/${task}/children`, 'utf8').split(' ')) {
      if (pid.trim() === '') continue;
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('@harness/exec spawner'))
          found.push(Number(pid));
      } catch {}
    }
  }
  if (found.length !== 1)
    throw new Error(`expected one spawner process under the server, found ${found.length}`);
  return found[0] as number;
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

/** What a process holds after a forced full collection (gc-probe.mjs), in MiB. */
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
    if (performance.now() > deadline) throw new Error(`process ${pid} did not answer the gc probe`);
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

/** RSS sampled every {@link sampleEvery} calls, by window; a window's figure is its median. */
class RssSamples {
  private window: number[] = [];
  readonly windows: number[] = [];
  min = Number.POSITIVE_INFINITY;
  max = 0;
  constructor(readonly pid: number) {}
  sample(): void {
    const rss = rssMiB(this.pid);
    this.window.push(rss);
    this.min = Math.min(this.min, rss);
    this.max = Math.max(this.max, rss);
  }
  endWindow(): void {
    this.windows.push(summarize(this.window).median);
    this.window = [];
  }
}

function processResult(rss: RssSamples, start: AfterGc, end: AfterGc) {
  const first = rss.windows[0] as number;
  const last = rss.windows[rss.windows.length - 1] as number;
  return {
    pid: rss.pid,
    rssMiB: { afterWarmup: first, end: last, min: rss.min, peak: rss.max, growth: last - first },
    afterForcedGcMiB: {
      afterWarmup: start,
      end,
      heapUsedGrowth: end.heapUsed - start.heapUsed,
      rssGrowth: end.rss - start.rss,
    },
  };
}

const dir = benchDir();
const probeFile = join(dir.root, 'gc-probe.json');
const spawnerProbe = `${probeFile}.spawner`;
const serve = await serveStdio(dir, {
  nodeArgs: ['--expose-gc', '--import', join(import.meta.dirname, 'gc-probe.mjs')],
  extraEnv: { HARNESS_BENCH_PROBE: probeFile },
});
try {
  let n = 0;
  let rss: RssSamples[] = [];
  const timed = async (count: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < count; i++, n++) {
      const start = performance.now();
      await (mix[n % mix.length] as (c: Client) => Promise<unknown>)(serve.client);
      out.push(performance.now() - start);
      if ((i + 1) % sampleEvery === 0) for (const r of rss) r.sample();
    }
    for (const r of rss) r.endWindow();
    return out;
  };
  await timed(warmup);
  const spawner = spawnerPid(serve.pid);
  const gcStart = {
    serve: await afterGc(serve.pid, probeFile),
    spawner: await afterGc(spawner, spawnerProbe),
  };
  // The forced collection hands back memory the processes take again within a few hundred calls:
  // one more window, not measured, so that the first measured one reads them as they run.
  await timed(window);
  rss = [new RssSamples(serve.pid), new RssSamples(spawner)];
  const storeStart = storeBytes(dir.instance);
  const started = performance.now();
  const first = summarize(await timed(window));
  let last = first;
  for (let left = calls - window; left > 0; left -= window)
    last = summarize(await timed(Math.min(window, left)));
  const seconds = (performance.now() - started) / 1000;
  // A spawner that was replaced mid-run would make its two ends two processes' figures.
  if (spawnerPid(serve.pid) !== spawner) throw new Error('the spawner process was replaced during the run');
  const gcEnd = { serve: await afterGc(serve.pid, probeFile), spawner: await afterGc(spawner, spawnerProbe) };
  const storeEnd = storeBytes(dir.instance);
  const serveResult = processResult(rss[0] as RssSamples, gcStart.serve, gcEnd.serve);
  const spawnerResult = processResult(rss[1] as RssSamples, gcStart.spawner, gcEnd.spawner);
  const growth = serveResult.rssMiB.growth + spawnerResult.rssMiB.growth;
  const ratio = last.median / first.median;
  writeResult('serve-soak', {
    unit: 'ms per call (median of a 1000-call window)',
    calls,
    warmupCalls: warmup,
    seconds,
    subject: { label: 'per-call median, last 1000 calls', ...last },
    anchor: { label: 'per-call median, first 1000 calls after the warm-up', ...first },
    ratio,
    processes: { serve: serveResult, spawner: spawnerResult },
    rssGrowthMiB: growth,
    storeBytes: { afterWarmup: storeStart, end: storeEnd, perCall: (storeEnd - storeStart) / calls },
    target: { ratioAtMost: 1.1, rssGrowthMiBAtMost: 10 },
    pass: ratio <= 1.1 && growth <= 10,
    notes:
      "one MCP session over stdio; calls cycle run_read_command, run_command, a run_read_command batch of 4, list_commands; a batch counts as one call. processes.serve is `harness serve` with its embedded broker and store (one process); processes.spawner the broker's spawner, which starts the pack commands. rssMiB.afterWarmup and rssMiB.end are the medians of the RSS read every 100 calls over the first and the last measured 1000-call window (the first follows the forced collection after the warm-up by one unmeasured window, so it does not read the memory that collection handed back), min and peak the extremes of all readings; rssGrowthMiB, which the target checks, is the sum of both processes' growth from the first window to the last. afterForcedGcMiB is read after a full collection in each process (--expose-gc): heapUsed is what it still holds, youngGeneration the new space V8 sized, which V8 grows and shrinks with the allocation rate",
  });
  const line = (name: string, r: ReturnType<typeof processResult>) =>
    `${name} RSS ${r.rssMiB.afterWarmup.toFixed(1)} → ${r.rssMiB.end.toFixed(1)} MiB (${r.rssMiB.min.toFixed(1)}–${r.rssMiB.peak.toFixed(1)}), heap in use after GC ${r.afterForcedGcMiB.afterWarmup.heapUsed.toFixed(1)} → ${r.afterForcedGcMiB.end.heapUsed.toFixed(1)} MiB`;
  process.stdout.write(
    `serve-soak: ${line('serve', serveResult)}; ${line('spawner', spawnerResult)}; RSS growth ${growth.toFixed(1)} MiB; median ${first.median.toFixed(2)} → ${last.median.toFixed(2)} ms; store ${((storeEnd - storeStart) / calls).toFixed(0)} B/call\n`,
  );
} finally {
  await serve.client.close();
  dir.cleanup();
}
