import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
  format: ['esm'],
  // The page is built beside it by scripts/build-web.mjs (dist/web); tsup must not wipe it.
  clean: false,
  sourcemap: true,
  target: 'node20',
  // Workspace packages are bundled, as in the other bins, so the bin needs no built dependency.
  noExternal: [/^@harness\//],
  // A native addon cannot be bundled.
  external: ['better-sqlite3'],
  // Bundled CommonJS dependencies call require(); ESM has none, so give them one.
  banner: {
    js: "import { createRequire as __consoleCreateRequire } from 'node:module';\nconst require = __consoleCreateRequire(import.meta.url);",
  },
  esbuildOptions(options) {
    options.conditions = ['@harness/source'];
  },
});
