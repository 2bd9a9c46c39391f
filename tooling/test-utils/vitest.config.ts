import { defineConfig } from 'vitest/config';

// The helpers' own tests; test/fixtures holds test files that only these tests run, as a child run.
export default defineConfig({ test: { include: ['test/*.test.ts'] } });
