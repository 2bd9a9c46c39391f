// The protocol's bounds, each declared once; both sides read them from here.

/** Largest request line, in bytes of UTF-8 (newline excluded). A longer one is refused unread. */
export const MAX_REQUEST_LINE_BYTES = 1024 * 1024;

/**
 * Largest answer line, in bytes of UTF-8 (newline excluded). An answer carries a command's bounded
 * output (10 MiB by default, and a NUL byte takes six bytes of JSON), so it may be far longer than a
 * request; the broker never sends a longer one (it answers `answer_too_large` instead), and a client
 * drops a connection that does.
 */
export const MAX_ANSWER_LINE_BYTES = 32 * 1024 * 1024;

/**
 * Largest argument object a call may carry, in bytes of its compact JSON: smaller than a request
 * line so that the largest arguments still fit with their envelope.
 */
export const MAX_ARGS_BYTES = MAX_REQUEST_LINE_BYTES - 8 * 1024;

/** Requests of one connection a broker handles at once; later ones wait, unread. */
export const MAX_INFLIGHT_PER_CONNECTION = 32;

/**
 * Requests a client keeps unanswered on one connection. Equal to what the broker handles at once,
 * so a request that was sent is being handled, never queued unread behind others: a call beyond it
 * is refused `busy` before it is sent, and "lost" means lost.
 */
export const MAX_PENDING_REQUESTS = MAX_INFLIGHT_PER_CONNECTION;

/** Most components one `loom.compose` call may carry (seed 001: 1–100). */
export const MAX_COMPOSE_COMPONENTS = 100;

/** Most historical receipts `loom.authoring-context` returns (seed 001). */
export const MAX_CONTEXT_RECEIPTS = 32;

/**
 * How often the broker sends a progress line for a `run` that asked for them: the first once the
 * run has been in flight this long, then one each time this much more has passed (2 s).
 */
export const PROGRESS_INTERVAL_MS = 2_000;
