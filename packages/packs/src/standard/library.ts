// The standard packs bundled with this release: their YAML texts, embedded in the code (./bundled,
// generated from standard/*.yaml) so that every bundle of this package carries them, the CLI's and
// the loom bin's included, with no file to find beside it at run time.
import { STANDARD_PACK_TEXTS } from './bundled';

/** The standard packs of this release: name → the YAML text of `standard/<name>.yaml`. */
export const STANDARD_PACKS: Readonly<Record<string, string>> = STANDARD_PACK_TEXTS;

/** The names of the standard packs of this release, sorted. */
export const STANDARD_PACK_IDS: readonly string[] = Object.keys(STANDARD_PACK_TEXTS).sort();
