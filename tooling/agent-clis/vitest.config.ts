import { harnessVitestConfig } from '@harness/vitest-config';

export default harnessVitestConfig({
  test: {
    // The `harness` and `loom` bins the session drives, built when missing or stale.
    globalSetup: ['test/global-setup.ts'],
    // A first run downloads the pinned Claude Code into the cache; a session takes about 10 s.
    testTimeout: 180_000,
    hookTimeout: 600_000,
  },
});
