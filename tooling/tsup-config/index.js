// Shared tsup options of the library packages: ESM only for Node 20, with declarations and source
// maps, and a clean dist so a removed entry never lingers in a published tarball.

export function libraryConfig(entry, overrides = {}) {
  return {
    entry,
    format: ['esm'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    ...overrides,
  };
}
