// Preloaded into `harness serve` by the soak benchmark (`node --expose-gc --import <this file>`), so
// the benchmark can read the server's own heap without an inspector: on SIGUSR2 it forces a full
// collection, then writes `process.memoryUsage()` and the V8 heap spaces as JSON to $HARNESS_BENCH_PROBE (and, when
// $HARNESS_BENCH_SNAPSHOT names a directory, a heap snapshot into it first).
//
// The server starts its pack commands through a spawner process (@harness/exec, docs/exec.md,
// "Spawner"), started with an empty environment and no Node flags. So that the benchmark can read
// that process's heap the same way, this probe, in the server, adds `--expose-gc --import <this
// file>` and a probe path of its own ($HARNESS_BENCH_PROBE with `.spawner` appended) to the spawner's
// command line when the server starts it; nothing else of the spawner changes.
import childProcess from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';

/** The first line of the spawner's program (packages/exec/src/spawner.ts, SPAWNER_SOURCE). */
const SPAWNER_MARK = '/* @harness/exec spawner */';

const out = process.env.HARNESS_BENCH_PROBE;
const snapshots = process.env.HARNESS_BENCH_SNAPSHOT;
const role = process.env.HARNESS_BENCH_ROLE ?? 'serve';
let taken = 0;
if (out && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    if (snapshots) writeHeapSnapshot(join(snapshots, `${role}-${++taken}.heapsnapshot`));
    const usage = { ...process.memoryUsage(), v8: getHeapStatistics(), spaces: getHeapSpaceStatistics() };
    // Written whole then renamed, so the benchmark never reads half a file.
    writeFileSync(`${out}.tmp`, JSON.stringify(usage));
    renameSync(`${out}.tmp`, out);
  });
}

if (out && role === 'serve') {
  const spawn = childProcess.spawn;
  childProcess.spawn = function probedSpawn(...given) {
    const [file, args, options] = given;
    const program = Array.isArray(args) ? args.indexOf('-e') : -1;
    if (program >= 0 && String(args[program + 1]).startsWith(SPAWNER_MARK)) {
      const env = { ...options?.env, HARNESS_BENCH_PROBE: `${out}.spawner`, HARNESS_BENCH_ROLE: 'spawner' };
      if (snapshots) env.HARNESS_BENCH_SNAPSHOT = snapshots;
      const probe = ['--expose-gc', '--import', fileURLToPath(import.meta.url)];
      return spawn.call(this, file, [...probe, ...args], { ...options, env });
    }
    return spawn.apply(this, given);
  };
  // @harness/exec imports `spawn` by name; this makes that binding the probed one too.
  syncBuiltinESMExports();
}
