// The codes of the console HTTP API's error answer (`{ error: { code, message } }`): one definition,
// read by the server that answers with them and by the page that receives them. Node-free.
import { type CodeOf, defineCodes } from '@harness/errors';

/** The codes any route or the security layer answers with. */
export const ApiErrorCode = defineCodes({
  /** No console session: the person has not opened the printed link, or logged out. */
  unauthenticated: 'unauthenticated',
  /** The console session ended at its idle limit or its lifetime: a new login link is needed. */
  session_expired: 'session_expired',
  /** A state-changing request that did not come from this page. */
  forbidden_origin: 'forbidden_origin',
  /** A state-changing request without the session's CSRF header. */
  csrf_invalid: 'csrf_invalid',
  /** A loopback console reached under a Host that is not loopback. */
  host_refused: 'host_refused',
  /** No such route, approval, audit event or loom. */
  not_found: 'not_found',
  /** A query or body the route does not accept. */
  bad_request: 'bad_request',
  /** An approval that is no longer pending. */
  conflict: 'conflict',
  /** An approval whose command line cannot be shown, so it cannot be approved (it can be denied). */
  plan_unrenderable: 'plan_unrenderable',
  /** A request that reached a console behind a TLS proxy without `X-Forwarded-Proto: https` (403). */
  https_required: 'https_required',
  /** Too many login, passkey or decision requests from one session or address in a short time (429). */
  rate_limited: 'rate_limited',
  /**
   * A passkey is needed: a token login, or a decision without an assertion, on a console reachable
   * from other machines that has passkeys enrolled (403).
   */
  passkey_required: 'passkey_required',
  /** A passkey ceremony that failed: an unknown credential, a bad signature, a wrong origin (400). */
  passkey_invalid: 'passkey_invalid',
  /** A decision's assertion signs another approval, decision or plan hash (409). */
  assertion_mismatch: 'assertion_mismatch',
  /** A decision's assertion whose nonce is used already, unknown or expired (409). */
  assertion_replayed: 'assertion_replayed',
  /** A bug in the console; it printed the error. */
  internal: 'internal',
});

/** One of the {@link ApiErrorCode} values. */
export type ApiErrorCode = CodeOf<typeof ApiErrorCode>;

/** The codes of the Tasks routes (`POST /api/task`, sessions); each has its HTTP status on the server. */
export const TaskErrorCode = defineCodes({
  /** The body is not `{ prompt, loomId?, sessionId? }`. */
  invalid_input: 'invalid_input',
  /** `loomId` is not a loom id, or names no loom of the instance. */
  invalid_loom_id: 'invalid_loom_id',
  /** `sessionId` names no session. */
  session_not_found: 'session_not_found',
  /** A turn of the session is still running. */
  session_busy: 'session_busy',
  /** No model is configured (or its configuration is incomplete). */
  model_not_configured: 'model_not_configured',
  /** The model could not be reached or refused the request. */
  model_failed: 'model_failed',
  /** The turn's tools could not be opened (the instance's broker did not start). */
  tools_unavailable: 'tools_unavailable',
});

/** One of the {@link TaskErrorCode} values. */
export type TaskErrorCode = CodeOf<typeof TaskErrorCode>;
