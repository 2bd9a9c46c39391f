import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { defineConfig, type Options } from 'tsup';

// zod re-exports every locale it ships (`z.locales`, `z.core.locales`: some fifty languages, half of
// its code) and configures English itself. The CLI reads only English messages, so the bundle keeps
// that one: zod's locales index resolves to a module exporting `en` alone. Loading and compiling the
// rest was a large part of serve's start-up.
const zodEnglishOnly: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](classic|core|mini)$/.test(args.resolveDir)) return undefined;
      return { path: `${dirname(args.resolveDir)}/locales/index.js`, namespace: 'zod-english-only' };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: dirname(args.path),
    }));
  },
};

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
  // without the repository around it; the workspace JSON Schema ships beside it, and the copy's
  // `$schema` names that file, since the repository's path means nothing in an installed package.
  onSuccess: async () => {
    cpSync('../../fixtures/workspaces/demo', 'dist/examples/demo', { recursive: true });
    cpSync('../../packages/workspace/schema/workspace.schema.json', 'dist/examples/workspace.schema.json');
    const example = 'dist/examples/demo/workspace.yaml';
    const modeline = /^(# yaml-language-server: \$schema=).*$/m;
    const text = readFileSync(example, 'utf8');
    if (!modeline.test(text)) throw new Error(`${example}: no yaml-language-server $schema line to rewrite`);
    writeFileSync(example, text.replace(modeline, '$1../workspace.schema.json'));
  },
  esbuildPlugins: [zodEnglishOnly],
  esbuildOptions(options) {
    options.conditions = ['@harness/source'];
  },
});
