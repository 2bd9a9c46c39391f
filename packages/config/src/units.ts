// Human units in configuration files and flags: durations (`30s`, `5m`, `30d`) and byte sizes
// (`10MB`, `10MiB`). One parser for each notation; what differs between uses of a duration (which
// units, fractions or not, how long at most) is a grammar the caller names.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** How a duration may be written: the whole text, and the longest it may be. */
export interface DurationGrammar {
  /**
   * The whole text: a number (group 1) and its unit (group 2: `ms`, `s`, `m`, `h` or `d`), nothing
   * before or after them. A JSON Schema `pattern` may show its source.
   */
  readonly pattern: RegExp;
  /** The longest duration it admits, in ms. */
  readonly maxMs: number;
}

/** Longest {@link DURATION}: 24 h (a pack timeout, a session limit); longer is likely a unit mistake. */
export const MAX_DURATION_MS = 24 * UNIT_MS.h;

/**
 * A duration: a number, a fraction allowed, and `ms`, `s`, `m` or `h` (`500ms`, `30s`, `1.5h`; `30 s`
 * too, as workspace files have always been allowed to say), above 0 and at most 24 h. Pack timeouts,
 * runner timeouts and the console's session limits are written so.
 */
export const DURATION: DurationGrammar = {
  pattern: /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/,
  maxMs: MAX_DURATION_MS,
};

/**
 * A retention window: a whole number of minutes, hours or days of at most six digits (`90m`, `12h`,
 * `30d`). `--retention` and `delivery_retention` are written so, and `loom audit` reads its times so.
 */
export const RETENTION_WINDOW: DurationGrammar = {
  pattern: /^([1-9]\d{0,5})(m|h|d)$/,
  maxMs: 999_999 * UNIT_MS.d,
};

/**
 * Parses a duration written as `grammar` says (by default {@link DURATION}) into milliseconds,
 * rounded to a whole ms. A bare number is refused (its unit would be a guess), and so is a space before
 * or after the text.
 * Returns `undefined` when the text is not such a duration, or is 0 or longer than the grammar's
 * `maxMs`.
 */
export function parseDuration(text: string, grammar: DurationGrammar = DURATION): number | undefined {
  const m = grammar.pattern.exec(text);
  if (!m) return undefined;
  const ms = Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
  return ms > 0 && ms <= grammar.maxMs ? ms : undefined;
}

// SI prefixes are powers of ten and IEC prefixes powers of two, as the units say: `10MB` is
// 10 000 000 bytes, `10MiB` is 10 485 760 (CP-43's open question, decided in docs/packs.md).
const SIZE_UNITS = {
  B: 1,
  KB: 1e3,
  kB: 1e3,
  MB: 1e6,
  GB: 1e9,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
} as const;

/** Largest byte size {@link parseByteSize} admits: 1 GiB (an output ceiling a runner may have to hold). */
export const MAX_BYTE_SIZE = 1024 ** 3;

/**
 * How a byte size is written: a number (group 1), a fraction allowed, then its unit (group 2), spaces
 * between them allowed. A JSON Schema `pattern` may show its source.
 */
export const BYTE_SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*(B|KB|kB|MB|GB|KiB|MiB|GiB)$/;

/**
 * Parses a byte size written as a number and a unit (`512KB`, `10MB`, `10MiB`, `1GB`, `4096B`)
 * into bytes, rounded down. `KB`/`MB`/`GB` are decimal, `KiB`/`MiB`/`GiB` binary. Returns
 * `undefined` when the text (spaces around it ignored) is not a size above 0 and at most 1 GiB.
 */
export function parseByteSize(text: string): number | undefined {
  const m = BYTE_SIZE_PATTERN.exec(text.trim());
  if (!m) return undefined;
  const bytes = Math.floor(Number(m[1]) * SIZE_UNITS[m[2] as keyof typeof SIZE_UNITS]);
  return bytes > 0 && bytes <= MAX_BYTE_SIZE ? bytes : undefined;
}
