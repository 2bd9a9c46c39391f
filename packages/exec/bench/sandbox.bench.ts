// sandbox-spawn: what confinement adds to a process start. `true` through run() confined with
// bubblewrap (no network, read-only filesystem, pid namespace, the seccomp filter that refuses Unix
// sockets) against the same run() unconfined, interleaved in one process. Target: at most 10 ms
// added at the median, measured at a load average under 2 (the anchor's absolute median is printed
// beside it: a run whose anchor is over twice its idle value, ~3 ms, is to be discarded).
import { loadavg } from 'node:os';
import { compare, writeResult } from '@harness/bench-utils';
import { detectSandbox, run } from '@harness/exec';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const detection = detectSandbox();
if (!detection.available) {
  console.error(`sandbox-spawn skipped: ${detection.reason}`);
  process.exit(0);
}

async function once(sandboxed: boolean): Promise<void> {
  const result = await run({ argv: ['true'], env, cwd: '/', ...(sandboxed ? { sandbox: {} } : {}) });
  if (!result.ok) throw new Error(`true failed: ${result.outcome} ${result.stderr}`);
}

const loadBefore = loadavg()[0] ?? 0;
const result = await compare({
  name: 'sandbox-spawn',
  subject: { label: "run({ argv: ['true'], sandbox: {} }) (bwrap)", fn: () => once(true) },
  anchor: { label: "run({ argv: ['true'] }) unconfined", fn: () => once(false) },
  rounds: 30,
  inner: 10,
  warmup: 3,
  notes: `bubblewrap ${detection.version ?? ''}: --unshare-pid --as-pid-1 --unshare-ipc --unshare-net --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --seccomp 3 (socket(AF_UNIX), io_uring refused; the program through a pipe on fd 3). Target: added ms at the median <= 10, at load < 2.`,
});
const { name: _name, measuredAt: _at, node: _node, platform: _platform, ...measured } = result;
const addedMs =
  (measured.subject as { median: number }).median - (measured.anchor as { median: number }).median;
writeResult('sandbox-spawn', {
  ...measured,
  addedMsAtMedian: addedMs,
  loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
  target: { addedMsAtMost: 10 },
  pass: addedMs <= 10,
});
const anchorMedian = (measured.anchor as { median: number }).median;
process.stdout.write(
  `sandbox-spawn: +${addedMs.toFixed(2)} ms at the median (target <= 10 ms); anchor ${anchorMedian.toFixed(2)} ms; load ${loadBefore.toFixed(2)}\n`,
);
