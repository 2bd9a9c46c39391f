// The built-in bounds of a pack command that declares none are `@harness/exec`'s defaults: 30 s
// (origins: SwarmKit's default) and 10 MiB of stdout + stderr. Declared there, once. How a pack
// writes its own (`timeout: 5m`, `max_output: 10MB`) is read by `@harness/config`.
export { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from '@harness/exec';

/** Timeout of a requirement probe (`<binary> --version`): 10 s. */
export const PROBE_TIMEOUT_MS = 10_000;
