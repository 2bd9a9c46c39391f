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
 * secret), else rethrows. An approval that cannot be decided is not one: the host answers it as data.
 */
export function hostErrorAnswer(c: Context, error: unknown) {
  if (error instanceof Error && (error.name === 'HostError' || error.name === 'StoreError')) {
    return apiError(c, 400, ApiErrorCode.bad_request, error.message);
  }
  throw error;
}
