// The delivery of one announcement to one target: claimed in the store first (the delivery log's
// UNIQUE key makes it happen once, across restarts and hosts), then up to `attempts` POSTs, each
// bounded by `timeoutMs`, with exponential back-off between them, the row updated after each.
// What the log keeps of a failure is a few words — never a URL, a header or a secret.

import type { ApprovalRecord, NoticeEvent, NoticeStatus, Store } from '@harness/store';
import type { NotifyTarget } from '@harness/workspace';
import { type NoticeRequest, noticeRequest } from './messages';
import { SIGNATURE_HEADER, signNotice, TIMESTAMP_HEADER } from './sign';

/** The pause after a first failed attempt; each later one doubles it, up to {@link MAX_BACKOFF_MS}. */
export const NOTIFY_BACKOFF_MS = 500;
/** The longest pause between two attempts: 30 s. */
export const MAX_BACKOFF_MS = 30_000;

/** What one delivery needs. */
export interface Delivery {
  readonly store: Pick<Store, 'claimNotice' | 'recordNotice'>;
  readonly target: NotifyTarget;
  readonly event: NoticeEvent;
  readonly record: ApprovalRecord;
  readonly link: string | undefined;
  readonly timeoutMs: number;
  readonly attempts: number;
  /** Aborted when the host closes: an attempt under way is cut short, no other starts. */
  readonly closing: AbortSignal;
  readonly env: NodeJS.ProcessEnv;
}

/** How one attempt went. */
type Attempt = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/** The end of a delivery: `skipped` when another claimed it. */
export type DeliveryEnd =
  | { status: 'skipped' }
  | { status: NoticeStatus; attempts: number; error: string | null };

/**
 * Announces `event` to the target once: claims it, sends it, records how it went. A failed send is
 * an answer, never a throw; only a store that fails throws.
 */
export async function deliver(d: Delivery): Promise<DeliveryEnd> {
  const key = { approval: d.record.id, target: d.target.name, event: d.event };
  if (!(await d.store.claimNotice(key))) return { status: 'skipped' };
  const request = noticeRequest(d.target, d.event, d.record, d.link, d.env);
  const end = request.ok
    ? await send(request, d.attempts, d.timeoutMs, d.closing, (attempts, last) =>
        d.store.recordNotice({
          ...key,
          status: 'sending',
          attempts,
          httpStatus: last.status,
          error: last.error,
        }),
      )
    : { ok: false as const, attempts: 0, status: null, error: request.error };
  const status: NoticeStatus = end.ok ? 'delivered' : 'failed';
  const error = end.ok ? null : end.error;
  await d.store.recordNotice({ ...key, status, attempts: end.attempts, httpStatus: end.status, error });
  return { status, attempts: end.attempts, error };
}

/** How a request's attempts ended: delivered, or failed with the last failure's few words. */
export type SendEnd =
  | { ok: true; attempts: number; status: number }
  | { ok: false; attempts: number; status: number | null; error: string };

/**
 * Sends one request: up to `attempts` POSTs (a webhook's signed anew at each), with back-off between
 * them; `failed` is told of each failed attempt a later one follows. A closing host cuts it short.
 */
export async function send(
  request: Extract<NoticeRequest, { ok: true }>,
  attempts: number,
  timeoutMs: number,
  closing: AbortSignal,
  failed?: (attempts: number, last: { status: number | null; error: string }) => Promise<void>,
): Promise<SendEnd> {
  let made = 0;
  let last: Attempt = { ok: false, status: null, error: 'not sent' };
  while (made < attempts && !closing.aborted) {
    if (made > 0) await backOff(Math.min(MAX_BACKOFF_MS, NOTIFY_BACKOFF_MS * 2 ** (made - 1)), closing);
    if (closing.aborted) break;
    made += 1;
    last = await attempt(request, timeoutMs, closing);
    if (last.ok) break;
    if (made < attempts && !closing.aborted) await failed?.(made, last);
  }
  if (last.ok) return { ok: true, attempts: made, status: last.status };
  return {
    ok: false,
    attempts: made,
    status: last.status,
    error: endWords(last.error, closing.aborted && made < attempts),
  };
}

/** A failed delivery's reason; one cut short between attempts also says why no further one was made. */
function endWords(error: string, cut: boolean): string {
  return cut && error !== 'host closed' ? `${error}; host closed` : error;
}

/** One POST; a 2xx answer is delivered, anything else is a failure in a few words. */
async function attempt(
  request: Extract<NoticeRequest, { ok: true }>,
  timeoutMs: number,
  closing: AbortSignal,
): Promise<Attempt> {
  const headers = { ...request.headers };
  if (request.secret !== undefined) {
    const timestamp = Math.floor(Date.now() / 1000);
    headers[TIMESTAMP_HEADER] = String(timestamp);
    headers[SIGNATURE_HEADER] = signNotice(request.secret, timestamp, request.body);
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(request.url, {
      method: 'POST',
      headers,
      body: request.body,
      redirect: 'error',
      signal: AbortSignal.any([timeout, closing]),
    });
    // The answer's body is not read: dropping it frees the connection.
    await res.body?.cancel().catch(() => undefined);
    return res.ok
      ? { ok: true, status: res.status }
      : { ok: false, status: res.status, error: `HTTP ${res.status}` };
  } catch (error) {
    if (timeout.aborted) return { ok: false, status: null, error: `timeout after ${seconds(timeoutMs)}` };
    if (closing.aborted) return { ok: false, status: null, error: 'host closed' };
    return { ok: false, status: null, error: failureWords(error) };
  }
}

/** A duration as the log words it: `5s`, `0.3s`. */
const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))}s`;

// undici's error codes, as a person reads them. Its messages are not kept: they may name the URL.
const CODE_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/** Why a request failed, in a few words naming no URL. */
function failureWords(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  if (code !== undefined) return CODE_WORDS[code] ?? `request failed (${code})`;
  return 'request failed';
}

/** Resolves after `ms`, or at once when `closing` aborts. */
function backOff(ms: number, closing: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (closing.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      closing.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    closing.addEventListener('abort', done, { once: true });
  });
}
