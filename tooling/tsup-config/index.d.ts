import type { Options } from 'tsup';

// Re-exported so a package's `export default libraryConfig(...)` has a nameable type: the package
// no longer imports tsup itself, and `declaration` needs a portable name for the inferred type.
export type { Options };

/**
 * The tsup options every library package builds with (ESM, clean, source maps, Node 20
 * target) for the given entry points; `overrides` replaces any of them, key by key (shallow).
 */
export declare function libraryConfig(
  entry: string[] | Record<string, string>,
  overrides?: Omit<Options, 'entry'>,
): Options;
