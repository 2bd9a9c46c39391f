import { harnessVitestConfig } from '@harness/vitest-config';

export default harnessVitestConfig({
  test: {
    // The tests spawn the real bin, so it is built once before they start.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
  },
});
