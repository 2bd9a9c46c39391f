import { harnessVitestConfig } from '@harness/vitest-config';

export default harnessVitestConfig({
  test: {
    // The page's bundle is built once before the tests start; the browser tests need it.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One browser at a time on a shared machine.
    fileParallelism: false,
  },
});
