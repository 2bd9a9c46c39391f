// The page's side of the API: JSON reads, state-changing requests with the CSRF token, and the live
// feed (one EventSource shared by every view).
import { CodedError, defineCodes } from '@harness/errors';
import { ApiErrorCode, TaskErrorCode } from '../api-errors';

/** The one code only the page sets, never the server. */
export const PageErrorCode = defineCodes({
  /** An answer that was not 2xx and carried no `{ error: { code } }` the page knows (a crash, a proxy's page). */
  unexpected_answer: 'unexpected_answer',
});

/** What an API call can fail with: the server's codes (../api-errors.ts), or the page's own. */
export type ApiFailureCode = ApiErrorCode | TaskErrorCode | typeof PageErrorCode.unexpected_answer;

const SERVER_CODES: ReadonlySet<string> = new Set([
  ...Object.values(ApiErrorCode),
  ...Object.values(TaskErrorCode),
]);

/** An API answer that was not 2xx: its HTTP status, code and message, shown to the person as text. */
export class ApiError extends CodedError<ApiFailureCode> {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    code: ApiFailureCode,
    message: string,
  ) {
    super(code, message);
  }
}

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: unknown; message?: unknown } };
  if (!response.ok) {
    const code = body.error?.code;
    const message = body.error?.message;
    throw new ApiError(
      response.status,
      typeof code === 'string' && SERVER_CODES.has(code)
        ? (code as ApiFailureCode)
        : PageErrorCode.unexpected_answer,
      typeof message === 'string' ? message : response.statusText,
    );
  }
  return body as T;
}

/** GET `/api<path>`. */
export async function getJson<T>(path: string): Promise<T> {
  return answer<T>(await fetch(`/api${path}`, { credentials: 'same-origin' }));
}

let session: Promise<{ csrf: string; csrfHeader: string; person: string; instance: string }> | undefined;

/** The session's facts (CSRF token, who decides, the instance), read once. */
export function getSession() {
  session ??= getJson('/session');
  return session;
}

/** POST `/api<path>` with a JSON body and the CSRF header. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const s = await getSession();
  return answer<T>(
    await fetch(`/api${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', [s.csrfHeader]: s.csrf },
      body: JSON.stringify(body),
    }),
  );
}

type Listener = () => void;
const listeners = new Map<string, Set<Listener>>();
let source: EventSource | undefined;

/** Calls `listener` whenever `topic` changes on the server; returns the unsubscribe function. */
export function onLive(topic: string, listener: Listener): () => void {
  if (source === undefined) {
    source = new EventSource('/api/events');
    source.addEventListener('hello', () => document.documentElement.setAttribute('data-live', 'on'));
  }
  let set = listeners.get(topic);
  if (set === undefined) {
    set = new Set();
    listeners.set(topic, set);
    source.addEventListener(topic, () => {
      for (const l of listeners.get(topic) ?? []) l();
    });
  }
  set.add(listener);
  return () => set.delete(listener);
}
