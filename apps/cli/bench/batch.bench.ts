// serve-batch: one run_read_command batch of 16 calls of `true` through `harness serve` (at most 4
// in flight), against 4 sequential single calls of the same command, interleaved in one run with
// the physical floor of that ratio: 16 piped spawns of `true` at most 4 at once against 4
// sequential ones, from this process.
//
// The target (1.3) holds only where 4 spawns at once cost what one costs. A spawn of `true` is
// nearly all CPU (fork, exec, the dynamic loader, exit): with 2 cores, 16 of them cost at least
// twice what 4 sequential ones do (two at a time at best), and with the cores shared with other
// work 3 to 4 times, whoever starts them. The result states that floor beside the ratio, and
// `ratioToFloor` (our ratio / the floor's) says how much of the batch's cost is ours.

import { sampleEach, writeResult } from '@harness/bench-utils';
import { LIMITS } from '@harness/commands';
import {
  benchDir,
  callBatch,
  callNoop,
  requireBin,
  serveStdio,
  spawnTrue,
  spawnTrueLimited,
} from './fixture';

requireBin('serve-batch');
const CALLS = LIMITS.maxBatchCalls;
const ROUNDS = Math.ceil(CALLS / LIMITS.maxInFlight);
const dir = benchDir();
const serve = await serveStdio(dir);
try {
  const sides = {
    batch: {
      label: `run_read_command batch of ${CALLS} × bench.noop (true), harness serve over MCP stdio`,
      fn: () => callBatch(serve.client, 'run_read_command', CALLS),
    },
    singles: {
      label: `${ROUNDS} sequential run_read_command calls of bench.noop, same server`,
      fn: async () => {
        for (let i = 0; i < ROUNDS; i++) await callNoop(serve.client, 'run_read_command');
      },
    },
    floorBatch: {
      label: `${CALLS} × spawn('true'), detached, both pipes read, at most ${LIMITS.maxInFlight} at once`,
      fn: () => spawnTrueLimited(CALLS, LIMITS.maxInFlight),
    },
    floorSingles: {
      label: `${ROUNDS} sequential spawn('true'), detached, both pipes read`,
      fn: async () => {
        for (let i = 0; i < ROUNDS; i++) await spawnTrue();
      },
    },
  };
  const [batch, singles, floorBatch, floorSingles] = await sampleEach(Object.values(sides), {
    rounds: 30,
    inner: 3,
    warmup: 3,
  });
  if (!batch || !singles || !floorBatch || !floorSingles)
    throw new Error('serve-batch: a side has no samples');
  const ratio = batch.median / singles.median;
  const floor = floorBatch.median / floorSingles.median;
  writeResult('serve-batch', {
    unit: 'ms per call',
    subject: { label: sides.batch.label, ...batch },
    anchor: { label: sides.singles.label, ...singles },
    ratio,
    target: { ratioAtMost: 1.3 },
    pass: ratio <= 1.3,
    floor: {
      subject: { label: sides.floorBatch.label, ...floorBatch },
      anchor: { label: sides.floorSingles.label, ...floorSingles },
      ratio: floor,
    },
    ratioToFloor: ratio / floor,
    notes: `${CALLS} calls at most ${LIMITS.maxInFlight} in flight are ${ROUNDS} rounds; the target asks the batch to cost what ${ROUNDS} single calls cost. The floor is the same ratio for bare spawns of true run the same way: where it is above the target, the target cannot be met on this machine (a spawn is CPU work; ${LIMITS.maxInFlight} of them at once cost what one costs only with ${LIMITS.maxInFlight} free cores). ratioToFloor below 1 means the batch gains more from running its calls at once than bare spawns do (the per-call work of serve overlaps).`,
  });
  process.stdout.write(
    `serve-batch: floor ${floor.toFixed(3)}, ratio to floor ${(ratio / floor).toFixed(3)}\n`,
  );
} finally {
  await serve.client.close();
  dir.cleanup();
}
