// Shared benchmark harness: every benchmark measures a subject beside its anchor in the same process,
// interleaving the two so that machine noise hits both alike, and writes medians and the ratio as JSON.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');

export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], samples: sorted.length };
}

async function timeOnce(fn, inner) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < inner; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / inner;
}

export async function compare({
  name,
  unit = 'ms',
  subject,
  anchor,
  rounds = 30,
  inner = 1,
  warmup = 3,
  target,
  targetKind = 'max',
  notes,
}) {
  for (let i = 0; i < warmup; i++) {
    await timeOnce(subject.fn, inner);
    await timeOnce(anchor.fn, inner);
  }
  const s = [];
  const a = [];
  for (let i = 0; i < rounds; i++) {
    // Alternate which side goes first so neither always runs on a warmer cache.
    if (i % 2) {
      s.push(await timeOnce(subject.fn, inner));
      a.push(await timeOnce(anchor.fn, inner));
    } else {
      a.push(await timeOnce(anchor.fn, inner));
      s.push(await timeOnce(subject.fn, inner));
    }
  }
  const subjectStats = summarize(s);
  const anchorStats = summarize(a);
  const ratio = subjectStats.median / anchorStats.median;
  return writeResult(name, {
    unit: `${unit} per call`,
    subject: { label: subject.label, ...subjectStats },
    anchor: { label: anchor.label, ...anchorStats },
    ratio,
    target:
      target === undefined ? undefined : { [targetKind === 'max' ? 'ratioAtMost' : 'ratioAtLeast']: target },
    pass: target === undefined ? undefined : targetKind === 'max' ? ratio <= target : ratio >= target,
    notes,
  });
}

export function writeResult(name, result) {
  mkdirSync(resultsDir, { recursive: true });
  const full = {
    name,
    measuredAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    // What the machine was doing: a ratio taken at a load of 10 hides fixed costs that one taken
    // at 1 shows (the load counts this benchmark's own processes too).
    machine: { cpus: cpus().length, loadAverage1m: Number(loadavg()[0].toFixed(2)) },
    ...result,
  };
  writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify(full, null, 2)}\n`);
  const ratio = typeof full.ratio === 'number' ? ` ratio ${full.ratio.toFixed(3)}${medians(full)}` : '';
  const verdict = full.pass === undefined ? '' : full.pass ? ' (target met)' : ' (TARGET MISSED)';
  process.stdout.write(`${name}:${ratio}${verdict} at load ${full.machine.loadAverage1m}\n`);
  return full;
}

// The absolute medians beside a ratio, so a reader sees what the anchor cost in this run (a loaded
// machine inflates it and hides fixed costs).
function medians(result) {
  const subject = result.subject?.median;
  const anchor = result.anchor?.median;
  if (typeof subject !== 'number' || typeof anchor !== 'number') return '';
  const floor = typeof result.floor?.median === 'number' ? `, floor ${result.floor.median.toFixed(2)}` : '';
  const toFloor =
    typeof result.ratioToFloor === 'number' ? `; ratio to floor ${result.ratioToFloor.toFixed(3)}` : '';
  return ` (${subject.toFixed(2)} vs anchor ${anchor.toFixed(2)}${floor}${toFloor})`;
}

/**
 * Times several subjects against one anchor, all interleaved in each round (the order rotating every
 * round so no side always runs first), and writes one result per subject, each with the shared
 * anchor's median. Use it when subjects share one costly set-up, such as a running server.
 *
 * `floor`, when given, is timed in the same rounds: the least any implementation of the subjects
 * could cost on this machine (e.g. a do-nothing server doing the same work). Each result then holds
 * the floor's stats, its own ratio to the anchor, and `ratioToFloor` (the subject's median over the
 * floor's): where the floor's ratio is above a target, the target cannot be met here.
 */
export async function compareEach({
  anchor,
  subjects,
  floor,
  rounds = 30,
  inner = 1,
  warmup = 3,
  unit = 'ms',
}) {
  const sides = floor === undefined ? [anchor, ...subjects] : [anchor, floor, ...subjects];
  const [anchorStats, ...rest] = await sampleEach(sides, { rounds, inner, warmup });
  const floorStats = floor === undefined ? undefined : rest.shift();
  return subjects.map((subject, i) => {
    const stats = rest[i];
    const ratio = stats.median / anchorStats.median;
    const target = subject.target;
    return writeResult(subject.name, {
      unit: `${unit} per call`,
      subject: { label: subject.label, ...stats },
      anchor: { label: anchor.label, ...anchorStats },
      ratio,
      target: target === undefined ? undefined : { ratioAtMost: target },
      pass: target === undefined ? undefined : ratio <= target,
      ...(floorStats === undefined
        ? {}
        : {
            floor: { label: floor.label, ...floorStats, ratio: floorStats.median / anchorStats.median },
            ratioToFloor: stats.median / floorStats.median,
          }),
      notes: subject.notes,
    });
  });
}

/**
 * Times every side interleaved in each round (the order rotating every round, so no side always runs
 * first) and returns each side's stats, in the order given. Writes nothing: for benchmarks whose
 * result is more than one ratio.
 */
export async function sampleEach(sides, { rounds = 30, inner = 1, warmup = 3 } = {}) {
  for (let i = 0; i < warmup; i++) for (const side of sides) await timeOnce(side.fn, inner);
  const samples = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const j = (k + r) % sides.length;
      samples[j].push(await timeOnce(sides[j].fn, inner));
    }
  }
  return samples.map(summarize);
}
