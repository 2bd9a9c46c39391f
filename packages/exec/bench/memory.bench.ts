// exec-memory: a command writes 1 GiB with a 10 MiB ceiling under onExceed "truncate", so run must
// read all of it; the calling process's peak RSS growth should stay within 3 × the ceiling.
//
// Each measurement runs in a fresh node process: it warms up, resets the kernel's RSS high-water
// mark (writing 5 to /proc/self/clear_refs), runs the command, and reports VmHWM − RSS before (and a
// 2 ms rss sampler as a cross-check). The anchor, measured the same way in the same bench run, is
// a plain child_process.spawn with a 'data' listener that keeps nothing, for context.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { summarize, writeResult } from '@harness/bench-utils';
import { run } from '@harness/exec';

const GiB = 1024 * 1024 * 1024;
const ceiling = 10 * 1024 * 1024;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const argv = ['head', '-c', String(GiB), '/dev/zero'];

function vmHwm(): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : undefined;
}

async function discard(size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const child = spawn('head', ['-c', String(size), '/dev/zero'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.length;
    });
    child.once('error', reject);
    child.once('close', () => resolve(seen));
  });
}

async function viaRun(size: number): Promise<number> {
  const r = await run({
    argv: ['head', '-c', String(size), '/dev/zero'],
    env,
    maxOutputBytes: ceiling,
    onExceed: 'truncate',
    timeoutMs: 600_000,
  });
  if (!r.ok || r.outputBytes.kept !== ceiling) throw new Error(`unexpected result: ${r.outcome}`);
  return r.outputBytes.seen;
}

async function measure(which: 'run' | 'discard'): Promise<void> {
  const fn = which === 'run' ? viaRun : discard;
  await fn(4 * ceiling);
  const baseline = process.memoryUsage.rss();
  writeFileSync('/proc/self/clear_refs', '5');
  let sampled = baseline;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage.rss());
  }, 2);
  const started = performance.now();
  const seen = await fn(GiB);
  const ms = performance.now() - started;
  clearInterval(sampler);
  const peak = Math.max(sampled, vmHwm() ?? 0, process.memoryUsage.rss());
  if (seen !== GiB) throw new Error(`read ${seen} bytes, expected ${GiB}`);
  process.stdout.write(JSON.stringify({ growth: peak - baseline, ms }));
}

const mode = process.argv[2];
if (mode === 'run' || mode === 'discard') {
  await measure(mode);
} else {
  const self = fileURLToPath(import.meta.url);
  const once = (which: string): { growth: number; ms: number } => {
    const out = spawnSync(process.execPath, [...process.execArgv, self, which], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`measurement ${which} failed: ${out.stderr}`);
    return JSON.parse(out.stdout);
  };
  const subject: number[] = [];
  const anchor: number[] = [];
  const durations: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = once('run');
    subject.push(r.growth);
    durations.push(r.ms);
    anchor.push(once('discard').growth);
  }
  const s = summarize(subject);
  const a = summarize(anchor);
  const ratio = s.median / ceiling;
  writeResult('exec-memory', {
    unit: 'bytes of peak RSS growth',
    command: argv.join(' '),
    ceiling,
    onExceed: 'truncate',
    subject: { label: 'run (truncate, 10 MiB ceiling)', ...s },
    anchor: { label: "child_process.spawn + 'data' listener keeping nothing", ...a },
    ratio,
    durationMsMedian: summarize(durations).median,
    target: { ratioAtMost: 3 },
    pass: ratio <= 3,
    notes:
      'ratio = median peak growth / ceiling (each sample a fresh process). Growth is the kept bytes (≤ 1 × ceiling, held as views of pipe chunks), the result strings, and pipe chunks not yet collected by V8; the anchor shows what a reader that keeps nothing costs in the same conditions (GC timing makes it noisy).',
  });
}
