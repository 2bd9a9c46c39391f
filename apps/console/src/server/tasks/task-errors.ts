// The Tasks API's errors: the HTTP status each code (../../api-errors.ts) answers with, and the class.
import { CodedError } from '@harness/errors';
import type { TaskErrorCode } from '../../api-errors';

/** The HTTP status each {@link TaskErrorCode} answers with. */
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
