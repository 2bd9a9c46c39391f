// Public surface of @harness/config: what every config loader of the repository reads the same way.
// The root holds durations, byte sizes, UTF-8 length and the id patterns, and imports nothing, so a
// flag parser or a browser bundle pays for no parser library; YAML with positions is the ./yaml entry
// (the `yaml` package) and the zod object helpers the ./zod entry. A leaf: it depends on no other
// package of ours, so any package can build on it without a cycle.

export { ENV_NAME_PATTERN, ID_PATTERN, SHORT_ID_PATTERN } from './patterns';
export type { DurationGrammar } from './units';
export {
  BYTE_SIZE_PATTERN,
  DURATION,
  MAX_BYTE_SIZE,
  MAX_DURATION_MS,
  parseByteSize,
  parseDuration,
  RETENTION_WINDOW,
} from './units';
export { utf8Length } from './utf8';
