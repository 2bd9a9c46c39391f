// How property tests pick their seed and their number of runs, from the environment, so that a run
// is reproducible by default and a failure found with any seed is reproducible by that seed.
//
//   FC_SEED              unset: FC_DEFAULT_SEED (every run tests the same cases); an integer: that
//                        seed; `random`: a fresh seed per test file, shown in each test's title.
//   FC_RUNS_MULTIPLIER   a positive integer multiplying every property's runs (default 1).
//
// Reproduce a failure: `FC_SEED=<seed from the title or the failure> pnpm --filter <pkg> test`.

/** The seed every property test uses when `FC_SEED` is unset. */
export const FC_DEFAULT_SEED = 20_261_201;

/** The seed named by `FC_SEED` (see above); throws on a value that is neither an integer nor `random`. */
export function fcSeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FC_SEED?.trim();
  if (raw === undefined || raw === '') return FC_DEFAULT_SEED;
  if (raw === 'random') return (Date.now() ^ (Math.random() * 0x1_0000_0000)) | 0;
  if (/^-?\d+$/.test(raw) && Number.isSafeInteger(Number(raw))) return Number(raw);
  throw new Error(`FC_SEED must be an integer or "random"; found ${JSON.stringify(raw)}`);
}

/** `numRuns` times `FC_RUNS_MULTIPLIER`; throws on a multiplier that is not a positive integer. */
export function fcRuns(numRuns: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FC_RUNS_MULTIPLIER?.trim();
  if (raw === undefined || raw === '') return numRuns;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new Error(`FC_RUNS_MULTIPLIER must be a positive integer; found ${JSON.stringify(raw)}`);
  }
  return numRuns * Number(raw);
}
