import { harnessVitestConfig } from '@harness/vitest-config';

export default harnessVitestConfig({
  test: {
    // The tests spawn the real bin (and the loom bin it ships with), so both are built first.
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['@harness/test-utils/fast-check-setup'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
