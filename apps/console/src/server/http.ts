// Small helpers shared by the route modules: the error answer shape, and a host error's status.
import type { Context } from 'hono';
import { ApiErrorCode } from '../api-errors';

/** `{ error: { code, message } }` with a status. */
export function apiError(
  c: Context,
  status: 400 | 401 | 403 | 404 | 409 | 503,
  code: ApiErrorCode,
  message: string,
) {
  return c.json({ error: { code, message } }, status);
}

/**
 * Answers a `HostError` or a `StoreError` with its message (written for people, never holding a
 * secret), else rethrows.
 */
export function hostErrorAnswer(c: Context, error: unknown) {
  if (error instanceof Error && (error.name === 'HostError' || error.name === 'StoreError')) {
    const code = (error as { code?: unknown }).code;
    if (code === 'approval_not_found') {
      return apiError(
        c,
        error.message.includes('not pending') ? 409 : 404,
        ApiErrorCode.conflict,
        error.message,
      );
    }
    return apiError(c, 400, ApiErrorCode.bad_request, error.message);
  }
  throw error;
}
