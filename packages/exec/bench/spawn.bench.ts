// exec-spawn: the cost of `run` around a process start, against the floor of a run that captures
// output: child_process.spawn of the same program, detached (its own process group), stdout and
// stderr piped and read to their end, awaited to its close. Measured interleaved in one process.
import { spawn } from 'node:child_process';
import { compare } from '@harness/bench-utils';
import { run } from '@harness/exec';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

function bareSpawn(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('true', [], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function viaRun(): Promise<void> {
  const result = await run({ argv: ['true'], env });
  if (!result.ok) throw new Error(`true failed: ${result.outcome}`);
}

await compare({
  name: 'exec-spawn',
  subject: { label: "run({ argv: ['true'] })", fn: viaRun },
  anchor: { label: "child_process.spawn('true'), detached, both pipes read, awaiting close", fn: bareSpawn },
  rounds: 30,
  inner: 10,
  warmup: 3,
  target: 1.3,
  notes:
    'Both start /usr/bin/true detached with stdout and stderr piped and read; run adds argv/env/cwd checks, PATH resolution, a process group, bounded capture and the group liveness check.',
});
