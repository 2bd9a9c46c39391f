// The built-in bounds of a pack command that declares none are `@harness/exec`'s defaults: 30 s
// (origins: SwarmKit's default) and 10 MiB of stdout + stderr. Declared there, once. How a pack
// writes its own (`timeout: 5m`, `max_output: 10MB`) is read by `@harness/config`.
export { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from '@harness/exec';

/**
 * How long an approval request stays open for a person when neither the pack nor the workspace
 * says (`approval_timeout`): 15 minutes. Nobody answering is a no: the request expires and the
 * call is refused.
 */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 15 * 60 * 1000;

/** Timeout of a requirement probe (`<binary> --version`): 10 s. */
export const PROBE_TIMEOUT_MS = 10_000;
