// Shared tsup options of the library packages: ESM only for Node 20, with source maps, and a clean
// dist so a removed entry never lingers in a published tarball. Declarations are not tsup's: each
// package's build runs `tsc -p tsconfig.build.json` after it (one check of its own sources, its
// dependencies read from their built declarations), which costs a tenth of tsup's dts pass.

export function libraryConfig(entry, overrides = {}) {
  return {
    entry,
    format: ['esm'],
    dts: false,
    clean: true,
    sourcemap: true,
    target: 'node20',
    ...overrides,
  };
}
