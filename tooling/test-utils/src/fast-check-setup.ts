// A vitest setup file for packages with property tests: every fast-check property of the test file
// runs with the seed `FC_SEED` names (./fast-check.ts). `test.prop` (./property.ts) reads this global seed
// and shows it in each property's title; fast-check prints it again with the counterexample.
import fc from 'fast-check';
import { vi } from 'vitest';
import { fcRuns, fcSeed } from './fast-check';

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: fcSeed() });

// A property runs hundreds of cases: about a second on an idle machine, but tens of seconds on a
// shared CI machine running every package at once. The timeout is a hang guard, not a speed check.
vi.setConfig({ testTimeout: fcRuns(120_000) });
