// Defaults shared by both host clients, declared once.

/**
 * How long one host call may take before its outcome reads as lost (120 s), for a call whose listing
 * row names no timeout of its own: `timeoutMs` of the configuration overrides it.
 */
export const DEFAULT_HOST_TIMEOUT_MS = 120_000;

/**
 * What a call waits beyond its command's own timeout (30 s; docs/commands.md, "How long a call
 * waits"). The host's work around the process falls in it: deciding and recording the call before
 * the spawn, starting the spawner or the sandbox, the kill grace (2 s) and the wait for a killed
 * group to be gone after a timeout, committing the audit row, and a loaded machine doing all of it
 * slowly. It is cheap: a broker that dies closes the connection and the call reads lost at once, so
 * only a hung broker makes a client wait the margin out.
 */
export const HOST_WAIT_MARGIN_MS = 30_000;

// The longest delay a Node timer takes (2^31 - 1 ms, 24.8 days); a longer one would fire at once.
const MAX_WAIT_MS = 2_147_483_647;

/**
 * How long a client waits for one call: its command's timeout (from the listing row) plus
 * {@link HOST_WAIT_MARGIN_MS}, but never less than `clientTimeoutMs` (the configuration's
 * `timeoutMs`, else {@link DEFAULT_HOST_TIMEOUT_MS}); a command whose row names no timeout waits
 * `clientTimeoutMs`.
 */
export function callWaitMs(clientTimeoutMs: number, commandTimeoutMs: number | undefined): number {
  const wait =
    commandTimeoutMs === undefined
      ? clientTimeoutMs
      : Math.max(clientTimeoutMs, commandTimeoutMs + HOST_WAIT_MARGIN_MS);
  return Math.min(wait, MAX_WAIT_MS);
}
