import { harnessVitestConfig } from '@harness/vitest-config';

// Real MCP servers start in these tests (npm installs the first time): a longer bound than the preset's.
export default harnessVitestConfig({ test: { testTimeout: 60_000, hookTimeout: 300_000 } });
