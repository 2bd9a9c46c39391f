// Shared vitest preset. Workspace packages resolve to their TypeScript sources through the
// "@harness/source" export condition, so tests never need a prior build of a dependency.
import { defineConfig } from 'vitest/config';

const conditions = ['@harness/source', 'import', 'module', 'node', 'default'];

export function harnessVitestConfig(overrides = {}) {
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@harness/source'] } },
    ...overrides,
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: 20_000,
      hookTimeout: 20_000,
      ...(overrides.test ?? {}),
    },
  });
}
