// Names the page and the server both use besides the error codes (./api-errors.ts): a header and a
// live-feed event of the session rules (docs/console.md, "Sessions"). Node-free.

/**
 * The header the page sets on a request it makes by itself (a refresh after a live update), so that
 * the request does not count as the person's activity and an unattended page still goes idle.
 */
export const BACKGROUND_HEADER = 'x-harness-background';

/**
 * The live feed's last event when its session ended: its data is `{ code, message }` as in an
 * error answer, plus `reason` (`idle`, `lifetime`, `logged_out`); the stream closes after it.
 */
export const SESSION_ENDED_EVENT = 'session-ended';
