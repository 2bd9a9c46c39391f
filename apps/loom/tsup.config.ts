import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { loom: 'src/loom.ts' },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The per-call path (`command list/run` over a broker) is the entry chunk; the host, SQLite and
  // packs load only from the chunks of the subcommands that import them.
  splitting: true,
  // Workspace packages are bundled so the bin starts without resolving a module graph.
  noExternal: [/^@harness\//],
  // A native addon cannot be bundled.
  external: ['better-sqlite3'],
  // Bundled CommonJS dependencies (ajv, yaml's peers) call require(); ESM has none, so give them one.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __loomCreateRequire } from 'node:module';\nconst require = __loomCreateRequire(import.meta.url);",
  },
  esbuildOptions(options) {
    options.conditions = ['@harness/source'];
  },
});
