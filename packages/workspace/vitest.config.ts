import { harnessVitestConfig } from '@harness/vitest-config';

export default harnessVitestConfig();
