// sandbox-spawn: what confinement adds to a process start. `true` through run() confined with
// bubblewrap (no network, read-only filesystem, pid namespace, the seccomp filter that refuses Unix
// sockets) against the same run() unconfined, interleaved in one process. Target: at most 10 ms
// added at the median, measured at a load average under 2 (the anchor's absolute median is printed
// beside it: a run whose anchor is over twice its idle value is to be discarded). The floor, measured
// in the same run: bubblewrap started directly with the same flags and filter, against `true`
// started directly; what confinement costs whoever drives it.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { compare, sampleEach, writeResult } from '@harness/bench-utils';
import { detectSandbox, run } from '@harness/exec';
import { encodeFilter, seccompFilter } from '../src/sandbox/seccomp';

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

const filter = encodeFilter(seccompFilter() ?? []);
const BWRAP = ['--die-with-parent', '--unshare-pid', '--as-pid-1', '--unshare-ipc', '--unshare-net'];
const MOUNTS = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];

/** `file args…` spawned directly, detached, both pipes read; the seccomp program on fd 3 if given. */
function direct(file: string, args: string[], fd3?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      detached: true,
      env,
      stdio: ['ignore', 'pipe', 'pipe', ...(fd3 === undefined ? [] : (['pipe'] as const))],
    });
    if (fd3 !== undefined) (child.stdio[3] as NodeJS.WritableStream).end(fd3);
    child.stdout?.resume();
    child.stderr?.resume();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

const loadBefore = loadavg()[0] ?? 0;
const [bwrapDirect, trueDirect] = await sampleEach(
  [
    {
      fn: () =>
        direct(
          detection.file,
          [...BWRAP, ...MOUNTS, ...(filter.length > 0 ? ['--seccomp', '3'] : []), '--', '/usr/bin/true'],
          filter.length > 0 ? filter : undefined,
        ),
    },
    { fn: () => direct('/usr/bin/true', []) },
  ],
  { rounds: 30, inner: 10, warmup: 3 },
);
const floorMs = (bwrapDirect as { median: number }).median - (trueDirect as { median: number }).median;
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
  floor: {
    label: 'bwrap with the same flags and seccomp filter around true, against true, both spawned directly',
    bwrap: bwrapDirect,
    true: trueDirect,
    addedMsAtMedian: floorMs,
  },
  ratioToFloor: addedMs / floorMs,
  loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
  target: { addedMsAtMost: 10 },
  pass: addedMs <= 10,
});
const anchorMedian = (measured.anchor as { median: number }).median;
process.stdout.write(
  `sandbox-spawn: +${addedMs.toFixed(2)} ms at the median (target <= 10 ms; floor +${floorMs.toFixed(2)} ms, ratio to the floor ${(addedMs / floorMs).toFixed(2)}); anchor ${anchorMedian.toFixed(2)} ms; load ${loadBefore.toFixed(2)}\n`,
);
