import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { harness: 'src/harness.ts' },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Workspace packages are bundled so the bin starts without resolving a module graph.
  noExternal: [/^@harness\//],
  banner: { js: '#!/usr/bin/env node' },
  esbuildOptions(options) {
    options.conditions = ['@harness/source'];
  },
});
