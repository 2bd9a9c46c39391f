import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { harness: 'src/harness.ts' },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Each subcommand is its own chunk, loaded only when named.
  splitting: true,
  // Workspace packages (and their own dependencies) are bundled so the bin needs no module graph of
  // its own; the MCP SDK and zod are this app's dependencies and stay external.
  noExternal: [/^@harness\//],
  // A native addon cannot be bundled.
  external: ['better-sqlite3', '@lydell/node-pty'],
  // Bundled CommonJS dependencies call require(); ESM has none, so give them one.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __harnessCreateRequire } from 'node:module';\nconst require = __harnessCreateRequire(import.meta.url);",
  },
  esbuildOptions(options) {
    options.conditions = ['@harness/source'];
  },
});
