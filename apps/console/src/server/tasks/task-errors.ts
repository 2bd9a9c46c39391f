// The Tasks API's answer codes: one table, snake_case, with the HTTP status each answers with.
import { CodedError, type CodeOf, defineCodes } from '@harness/errors';

export const TASK_ERROR_CODES = defineCodes({
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

export type TaskErrorCode = CodeOf<typeof TASK_ERROR_CODES>;

export const TASK_ERROR_STATUS: Record<TaskErrorCode, 400 | 404 | 409 | 502 | 503> = {
  invalid_input: 400,
  invalid_loom_id: 400,
  session_not_found: 404,
  session_busy: 409,
  model_not_configured: 503,
  model_failed: 502,
  tools_unavailable: 503,
};

/** A refusal or failure of a task, answered as `{ error: { code, message } }`. */
export class TaskError extends CodedError<TaskErrorCode> {
  override readonly name = 'TaskError';
}
