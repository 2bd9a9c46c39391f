// The built-in bounds of a pack command that declares none are `@harness/exec`'s defaults: 30 s
// (origins: SwarmKit's default) and 10 MiB of stdout + stderr. Declared there, once.
export { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from '@harness/exec';

/** Timeout of a requirement probe (`<binary> --version`): 10 s. */
export const PROBE_TIMEOUT_MS = 10_000;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
// SI prefixes are powers of ten and IEC prefixes powers of two, as the units say: `10MB` is
// 10 000 000 bytes, `10MiB` is 10 485 760 (CP-43's open question, decided in docs/packs.md).
const SIZE_UNITS: Record<string, number> = {
  B: 1,
  KB: 1e3,
  kB: 1e3,
  MB: 1e6,
  GB: 1e9,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
};

/** Longest timeout a pack may declare (24 h): a longer one is almost certainly a unit mistake. */
export const MAX_TIMEOUT_MS = 24 * 3_600_000;
/** Largest output ceiling a pack may declare (1 GiB): the runner holds this much in memory at worst. */
export const MAX_OUTPUT_CEILING_BYTES = 1024 ** 3;

/**
 * Parses a duration written as a number and a unit (`500ms`, `30s`, `5m`, `1.5h`) into
 * milliseconds. A bare number is refused (its unit would be a guess). Returns `undefined` when the
 * text is not a positive duration of at most 24 h.
 */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Math.round(Number(m[1]) * DURATION_UNITS[m[2]!]!);
  return ms > 0 && ms <= MAX_TIMEOUT_MS ? ms : undefined;
}

/**
 * Parses a byte size written as a number and a unit (`512KB`, `10MB`, `10MiB`, `1GB`, `4096B`)
 * into bytes. `KB`/`MB`/`GB` are decimal, `KiB`/`MiB`/`GiB` binary. Returns `undefined` when the
 * text is not a positive size of at most 1 GiB.
 */
export function parseByteSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(B|KB|kB|MB|GB|KiB|MiB|GiB)$/.exec(text.trim());
  if (!m) return undefined;
  const bytes = Math.floor(Number(m[1]) * SIZE_UNITS[m[2]!]!);
  return bytes > 0 && bytes <= MAX_OUTPUT_CEILING_BYTES ? bytes : undefined;
}
