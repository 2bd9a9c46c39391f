// Shared vitest preset. Workspace packages resolve to their TypeScript sources through the
// "@harness/source" export condition, so tests never need a prior build of a dependency.
import { defineConfig } from 'vitest/config';

const conditions = ['@harness/source', 'import', 'module', 'node', 'default'];
// Vitest hands the SSR conditions to Node (--conditions) for the modules Node loads itself. Node
// adds `import` or `require` by how a module is loaded; naming `import` there would make a CommonJS
// require() of a dual package (pg's require('pg-pool')) load its ESM build.
const nodeConditions = ['@harness/source', 'node', 'default'];

// FC_RUNS_MULTIPLIER (see @harness/test-utils, fast-check.ts) multiplies every property's runs; the
// time a test may take grows with it, so a long local run is not cut short by the default timeout.
const runsMultiplier = Math.max(1, Number.parseInt(process.env.FC_RUNS_MULTIPLIER ?? '1', 10) || 1);
const timeout = 20_000 * runsMultiplier;

export function harnessVitestConfig(overrides = {}) {
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions: nodeConditions, externalConditions: ['@harness/source'] } },
    ...overrides,
    test: {
      include: ['test/**/*.test.ts'],
      // The files of a worker share one import of each module (docs/testing.md, "The suite's cost"):
      // a test file must not depend on fresh module state, and must put back what it changes of the
      // process (its environment, its working directory, its listeners).
      isolate: false,
      testTimeout: timeout,
      hookTimeout: timeout,
      ...(overrides.test ?? {}),
    },
  });
}
