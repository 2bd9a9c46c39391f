// The page's side of the API: JSON reads, state-changing requests with the CSRF token, the live
// feed (one EventSource shared by every view), and the session's end (expired, or logged out),
// after which the page shows only how to log in again.
import { CodedError, defineCodes } from '@harness/errors';
import type { LogoutAnswer, SessionAnswer } from '../answers';
import { ApiErrorCode, TaskErrorCode } from '../api-errors';
import { BACKGROUND_HEADER, SESSION_ENDED_EVENT } from '../wire';

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

/** Why the page has no session any more, and the server's words on how to log in again. */
export interface SignedOut {
  reason: 'logged_out' | 'expired' | 'unauthenticated';
  message: string;
}

let signedOut: SignedOut | undefined;
const signedOutListeners = new Set<(state: SignedOut) => void>();

/** The session's end, once it ended (the page then shows only that). */
export function currentSignedOut(): SignedOut | undefined {
  return signedOut;
}

/** Calls `listener` when the session ends; returns the unsubscribe function. */
export function onSignedOut(listener: (state: SignedOut) => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

function endSession(state: SignedOut): void {
  if (signedOut !== undefined) return;
  signedOut = state;
  source?.close();
  for (const listener of signedOutListeners) listener(state);
}

let loggingOut = false;

/** A refusal of the session itself ends it on the page; the first one's words are kept. */
function sessionRefused(code: unknown, message: string): void {
  // During this page's own logout, a read refused because the session just ended is that logout.
  if (loggingOut && code === ApiErrorCode.unauthenticated) endSession({ reason: 'logged_out', message });
  else if (code === ApiErrorCode.session_expired) endSession({ reason: 'expired', message });
  else if (code === ApiErrorCode.unauthenticated) endSession({ reason: 'unauthenticated', message });
}

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: unknown; message?: unknown } };
  if (!response.ok) {
    const code = body.error?.code;
    const message = body.error?.message;
    const text = typeof message === 'string' ? message : response.statusText;
    if (response.status === 401) sessionRefused(code, text);
    throw new ApiError(
      response.status,
      typeof code === 'string' && SERVER_CODES.has(code)
        ? (code as ApiFailureCode)
        : PageErrorCode.unexpected_answer,
      text,
    );
  }
  return body as T;
}

let background = false;

/**
 * Runs `read` as the page's own refresh (after a live update): the reads it starts carry the
 * background header, so they do not count as the person's activity. `getJson` reads the flag before
 * its first `await`, so only the reads `read` starts synchronously are marked.
 */
export function inBackground<T>(read: () => Promise<T>): Promise<T> {
  background = true;
  try {
    return read();
  } finally {
    background = false;
  }
}

/** GET `/api<path>`. */
export async function getJson<T>(path: string): Promise<T> {
  const headers: Record<string, string> = background ? { [BACKGROUND_HEADER]: '1' } : {};
  return answer<T>(await fetch(`/api${path}`, { credentials: 'same-origin', headers }));
}

let session: Promise<SessionAnswer> | undefined;

/** The session's facts (CSRF token, who decides, the instance, the limits), read once. */
export function getSession(): Promise<SessionAnswer> {
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
      headers: { 'content-type': 'application/json', [s.csrfHeader]: s.csrf ?? '' },
      body: JSON.stringify(body),
    }),
  );
}

/** Ends the session on the server (its cookie stops working there), then on the page. */
export async function logout(): Promise<void> {
  loggingOut = true;
  try {
    const done = await postJson<LogoutAnswer>('/session/logout', {});
    endSession({ reason: 'logged_out', message: done.message });
  } finally {
    loggingOut = false;
  }
}

type Listener = () => void;
const listeners = new Map<string, Set<Listener>>();
let source: EventSource | undefined;

function openSource(): EventSource {
  const es = new EventSource('/api/events');
  es.addEventListener('hello', () => document.documentElement.setAttribute('data-live', 'on'));
  es.addEventListener(SESSION_ENDED_EVENT, (e) => {
    const data = JSON.parse((e as MessageEvent<string>).data) as {
      code?: unknown;
      message?: unknown;
      reason?: unknown;
    };
    es.close();
    const message = typeof data.message === 'string' ? data.message : 'the session ended';
    // A logout from this page (or another tab of it) often reaches the feed before its own answer.
    if (data.reason === 'logged_out') endSession({ reason: 'logged_out', message });
    else sessionRefused(data.code, message);
  });
  // A stream the server refused (401) is not retried by the browser; ask why, which ends the
  // session on the page when that is the reason.
  es.addEventListener('error', () => {
    if (es.readyState === EventSource.CLOSED && signedOut === undefined) getJson('/session').catch(() => {});
  });
  return es;
}

/** Calls `listener` whenever `topic` changes on the server; returns the unsubscribe function. */
export function onLive(topic: string, listener: Listener): () => void {
  if (signedOut !== undefined) return () => {};
  source ??= openSource();
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
