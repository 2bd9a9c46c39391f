import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: false,
  sourcemap: true,
  target: 'node20',
  // The web bundle is built beside it by scripts/build-web.mjs (dist/web); tsup must not wipe it.
  external: ['@harness/host', 'better-sqlite3'],
  esbuildOptions(options) {
    options.conditions = ['@harness/source'];
  },
});
