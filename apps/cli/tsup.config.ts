import { cpSync } from 'node:fs';
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
  // its own. The MCP SDK and zod are bundled too: resolving and loading their many small modules
  // was most of serve's start-up.
  noExternal: [/^@harness\//, /^@modelcontextprotocol\/sdk/, /^zod/],
  // A native addon cannot be bundled.
  external: ['better-sqlite3', '@lydell/node-pty'],
  // Bundled CommonJS dependencies call require(); ESM has none, so give them one.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __harnessCreateRequire } from 'node:module';\nconst require = __harnessCreateRequire(import.meta.url);",
  },
  // The example workspace ships inside the package (dist/examples/demo), so an installed CLI finds it
  // without the repository around it.
  onSuccess: async () => {
    cpSync('../../fixtures/workspaces/demo', 'dist/examples/demo', { recursive: true });
  },
  esbuildOptions(options) {
    options.conditions = ['@harness/source'];
  },
});
