// Preloaded into `harness serve` by the soak benchmark (`node --expose-gc --import <this file>`), so
// the benchmark can read the server's own heap without an inspector: on SIGUSR2 it forces a full
// collection, then writes `process.memoryUsage()` and the V8 heap spaces as JSON to $HARNESS_BENCH_PROBE (and, when
// $HARNESS_BENCH_SNAPSHOT names a directory, a heap snapshot into it first).
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';

const out = process.env.HARNESS_BENCH_PROBE;
const snapshots = process.env.HARNESS_BENCH_SNAPSHOT;
let taken = 0;
if (out && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    if (snapshots) writeHeapSnapshot(join(snapshots, `serve-${++taken}.heapsnapshot`));
    const usage = { ...process.memoryUsage(), v8: getHeapStatistics(), spaces: getHeapSpaceStatistics() };
    // Written whole then renamed, so the benchmark never reads half a file.
    writeFileSync(`${out}.tmp`, JSON.stringify(usage));
    renameSync(`${out}.tmp`, out);
  });
}
