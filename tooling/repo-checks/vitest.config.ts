import { harnessVitestConfig } from '@harness/vitest-config';

export default harnessVitestConfig({ test: { setupFiles: ['@harness/test-utils/fast-check-setup'] } });
