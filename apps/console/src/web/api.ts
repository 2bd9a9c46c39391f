// The page's side of the API: JSON reads, state-changing requests with the CSRF token, and the live
// feed (one EventSource shared by every view).

/** An API answer that was not 2xx: its code and message, shown to the person as text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!response.ok) {
    throw new ApiError(
      response.status,
      body.error?.code ?? 'error',
      body.error?.message ?? response.statusText,
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
