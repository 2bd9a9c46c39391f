// The one socket client of loom-broker/2 (`@harness/protocol/client`): node:net and this package
// only, so the `loom` CLI's per-call path and the harness's fast path load nothing heavier.
import { lstat } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { encodeLine, LineReader } from './framing';
import { MAX_ANSWER_LINE_BYTES, MAX_PENDING_REQUESTS } from './limits';
import type { CommandAnswer, HelloResult, ListParams, ListResult, RunParams, RunProgress } from './types';
import { BROKER_PROTOCOL, protocolMismatch } from './version';

/**
 * Why a request produced no result. Only `lost` and `envelope` were sent; after `lost` the request
 * may have been handled, after `envelope` it was not (except `internal`, after which nobody can say).
 */
export type BrokerFailure =
  /** No connection could be made (or the client is closed): nothing was sent. */
  | { kind: 'unreachable'; message: string }
  /** The broker speaks another protocol version (named in the message): nothing was sent. */
  | { kind: 'incompatible'; message: string }
  /** The client already holds its bound of unanswered requests: nothing was sent. */
  | { kind: 'busy'; message: string }
  /** The caller's signal aborted before the request could be sent: nothing was sent. */
  | { kind: 'cancelled'; message: string }
  /** The request was sent and no readable answer came back: it may have been handled. */
  | { kind: 'lost'; message: string }
  /** The broker answered with an envelope error: the request itself could not be handled. */
  | { kind: 'envelope'; code: string; message: string };

/** A request's outcome as data; the client never throws. */
export type BrokerResult<T> = { ok: true; value: T } | { ok: false; failure: BrokerFailure };

/** Options of {@link createBrokerClient}. */
export interface BrokerClientOptions {
  /** The broker's Unix socket. */
  socketPath: string;
  /**
   * Per request, from the call until its answer: unanswered by then, it reads as `lost` when it was
   * sent and `unreachable` when it was not. Default: wait.
   */
  timeoutMs?: number;
  /** Unanswered requests held at once; one more is refused `busy`. Default {@link MAX_PENDING_REQUESTS}. */
  maxPending?: number;
}

/** Options of a one-shot request ({@link brokerRun} and its siblings), and of one request of a client. */
export interface BrokerCallOptions {
  /**
   * Give up after this many ms (see {@link BrokerClientOptions.timeoutMs}). Default: the client's
   * `timeoutMs`, else wait.
   */
  timeoutMs?: number;
}

/** Options of one `run` ({@link BrokerClient.run}, {@link brokerRun}). */
export interface RunCallOptions extends BrokerCallOptions {
  /**
   * Aborted before the request is sent: nothing is sent (`cancelled`). Aborted after: the client
   * sends `cancel` for it on the same connection and keeps waiting for its answer, which the broker
   * still sends (a killed pack command answers `failed`, reason `cancelled`).
   */
  signal?: AbortSignal;
  /**
   * Receives the broker's progress lines while the run is in flight; giving it asks for them
   * (`progress: true` on the request). A throw is ignored.
   */
  onProgress?: (progress: RunProgress) => void;
}

/** A client of one broker: one connection, greeted with `hello`, requests multiplexed by id. */
export interface BrokerClient {
  /** The broker's greeting: its protocol, run and agent. */
  hello(): Promise<BrokerResult<HelloResult>>;
  /** The manifest rows the broker's scope admits. */
  list(params?: ListParams): Promise<BrokerResult<ListResult>>;
  /** Runs one command as the broker's agent; see {@link RunCallOptions} for progress and cancelling. */
  run(params: RunParams, options?: RunCallOptions): Promise<BrokerResult<CommandAnswer>>;
  /** Sends any op (`protocol` and `id` are filled in); for tools and tests that probe a broker. */
  request<T>(body: Record<string, unknown>, options?: RunCallOptions): Promise<BrokerResult<T>>;
  /** Drops the connection; requests still open read as `lost` (sent) or `unreachable`. Idempotent. */
  close(): Promise<void>;
}

type Settle = (result: BrokerResult<unknown>) => void;

/** A request written on a connection and not yet answered. */
interface Written {
  settle: Settle;
  /** Told each progress line addressed to it (a `run` that asked for them). */
  onProgress?: ((progress: RunProgress) => void) | undefined;
}

/** One greeted socket to the broker. */
interface Connection {
  socket: Socket;
  greeting: HelloResult;
  /** Requests written on this connection and not yet answered, by id. */
  written: Map<string, Written>;
}

const fail = (failure: BrokerFailure): { ok: false; failure: BrokerFailure } => ({ ok: false, failure });

/**
 * Creates a client of the broker at `options.socketPath`. The connection opens on the first request
 * and is greeted with `hello`: a broker that does not answer as {@link BROKER_PROTOCOL} is refused
 * by name (`incompatible`) and nothing waiting on it is sent. After the connection drops, the next
 * request opens a new one. While requests are open the socket keeps the process alive; idle, it
 * does not.
 */
export function createBrokerClient(options: BrokerClientOptions): BrokerClient {
  const link = new BrokerLink(options.socketPath, Math.max(1, options.maxPending ?? MAX_PENDING_REQUESTS));
  const request = <T>(body: Record<string, unknown>, call: RunCallOptions = {}): Promise<BrokerResult<T>> =>
    sendRequest<T>(link, options, body, call);
  return {
    hello: () => request<HelloResult>({ op: 'hello' }),
    list: (params = {}) => request<ListResult>({ ...params, op: 'list' }),
    run: (params, call) => request<CommandAnswer>({ ...params, op: 'run' }, call),
    request,
    async close() {
      link.close();
    },
  };
}

/**
 * The state one client holds across its requests: the connection open now (or the one being
 * opened), the requests counted against the pending bound, the next request id, and whether the
 * client is closed. A connection that drops is forgotten, so the next request opens a new one.
 */
class BrokerLink {
  readonly path: string;
  /** Unanswered requests held at once; one more is refused `busy`. */
  readonly maxPending: number;
  #connection: Connection | undefined;
  #opening: Promise<Connection | BrokerFailure> | undefined;
  #open = 0;
  #nextId = 0;
  #closed = false;

  constructor(path: string, maxPending: number) {
    this.path = path;
    this.maxPending = maxPending;
  }

  /** Requests from their call until they settle, sent or not. */
  get open(): number {
    return this.#open;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Counts a request as open until {@link BrokerLink.end}. */
  begin(): void {
    this.#open++;
  }

  /** Stops counting a settled request. */
  end(): void {
    this.#open--;
    this.holdProcess();
  }

  /** Lets the socket keep the process alive while requests are open, and not while idle. */
  holdProcess(): void {
    if (this.#open > 0) this.#connection?.socket.ref();
    else this.#connection?.socket.unref();
  }

  /** Writes one request on `socket`; returns the id it was given. */
  write(
    socket: Socket,
    written: Map<string, Written>,
    body: Record<string, unknown>,
    settle: Settle,
    onProgress?: (progress: RunProgress) => void,
  ): string {
    const id = `c${++this.#nextId}`;
    written.set(id, { settle, onProgress });
    socket.write(encodeLine({ ...body, protocol: BROKER_PROTOCOL, id }));
    return id;
  }

  /**
   * Asks the broker to stop request `target` of connection `c`. Not counted against the pending
   * bound (a caller at its bound must still be able to cancel), and its answer is read and dropped:
   * what the cancel did shows in the target's own answer.
   */
  cancel(c: Connection, target: string): void {
    if (c.socket.destroyed || !c.written.has(target)) return;
    this.write(c.socket, c.written, { op: 'cancel', target }, () => {});
  }

  /** The greeted connection, opening one when there is none; a failure when none can be had. */
  connect(): Promise<Connection | BrokerFailure> {
    if (this.#connection && !this.#connection.socket.destroyed) return Promise.resolve(this.#connection);
    // Checked before every connect, so a socket swapped after an earlier connection is caught too.
    this.#opening ??= socketProblem(this.path)
      .then((unsafe) =>
        unsafe === undefined
          ? this.#openConnection()
          : { kind: 'unreachable' as const, message: `refusing to connect to ${this.path}: ${unsafe}` },
      )
      .finally(() => {
        this.#opening = undefined;
      });
    return this.#opening;
  }

  /** Drops the connection; requests still open on it read as `lost`. */
  close(): void {
    this.#closed = true;
    const c = this.#connection;
    this.#connection = undefined;
    c?.socket.destroy();
    if (c) lose(c.written, 'the client was closed before the answer came');
  }

  /** Opens a socket and greets the broker; the connection once the greeting admits it. */
  #openConnection(): Promise<Connection | BrokerFailure> {
    return new Promise<Connection | BrokerFailure>((resolve) => {
      const socket = createConnection(this.path);
      const reader = new LineReader(MAX_ANSWER_LINE_BYTES);
      const written = new Map<string, Written>();
      let greeted = false;
      let lastError = '';
      socket.setEncoding('utf8');
      socket.once('connect', () => {
        this.write(socket, written, { op: 'hello' }, (r) => {
          const refused = greetingRefusal(r);
          if (refused || this.#closed) {
            socket.destroy();
            resolve(refused ?? { kind: 'unreachable', message: 'the client is closed' });
            return;
          }
          greeted = true;
          this.#connection = { socket, written, greeting: (r as { ok: true; value: HelloResult }).value };
          this.holdProcess();
          resolve(this.#connection);
        });
      });
      socket.on('data', (chunk: string) => readAnswers(socket, reader, written, chunk));
      socket.on('error', (error: NodeJS.ErrnoException) => {
        lastError = error.code ?? error.message;
      });
      socket.on('close', () => {
        if (this.#connection?.socket === socket) this.#connection = undefined;
        if (!greeted) {
          resolve({
            kind: 'unreachable',
            message: `no broker answers at ${this.path}${lastError ? ` (${lastError})` : ''}; start one with \`loom broker start\``,
          });
        }
        lose(
          written,
          `the connection to the broker closed before the answer came${lastError ? ` (${lastError})` : ''}`,
        );
      });
    });
  }
}

/** Why a request cannot start, checked in this order: the client is closed, cancelled, at its bound. */
function refusal(link: BrokerLink, signal: AbortSignal | undefined): BrokerFailure | undefined {
  if (link.closed) return { kind: 'unreachable', message: 'the client is closed' };
  if (signal?.aborted) return cancelledBeforeSending;
  if (link.open >= link.maxPending)
    return {
      kind: 'busy',
      message: `${link.open} requests to the broker are still open (the bound is ${link.maxPending}); nothing was sent. Retry once some are answered.`,
    };
  return undefined;
}

/**
 * Sends one request over `link` and settles once: with its answer, or a failure when it times out,
 * is cancelled before it is sent, or cannot be sent.
 */
function sendRequest<T>(
  link: BrokerLink,
  options: BrokerClientOptions,
  body: Record<string, unknown>,
  call: RunCallOptions,
): Promise<BrokerResult<T>> {
  const { signal, onProgress } = call;
  const refused = refusal(link, signal);
  if (refused !== undefined) return Promise.resolve(fail(refused));
  const timeoutMs = call.timeoutMs ?? options.timeoutMs;
  link.begin();
  return new Promise<BrokerResult<T>>((resolve) => {
    let sent: { connection: Connection; id: string } | undefined;
    let done = false;
    const onAbort = (): void => {
      if (sent === undefined) finish(fail(cancelledBeforeSending));
      else link.cancel(sent.connection, sent.id);
    };
    const finish = (result: BrokerResult<unknown>): void => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      link.end();
      resolve(result as BrokerResult<T>);
    };
    const timer = startTimer(timeoutMs, (ms) =>
      finish(
        fail(
          sent
            ? { kind: 'lost', message: `no answer from the broker within ${ms} ms` }
            : { kind: 'unreachable', message: `could not reach the broker within ${ms} ms` },
        ),
      ),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    void link.connect().then((c) => {
      if (done) return;
      if (!('socket' in c)) {
        finish(fail(c));
        return;
      }
      if (body.op === 'hello') {
        finish({ ok: true, value: c.greeting });
        return;
      }
      // A broker answering in another protocol after a good greeting had the request: lost.
      const id = link.write(
        c.socket,
        c.written,
        onProgress === undefined ? body : { ...body, progress: true },
        (r) =>
          finish(
            r.ok || r.failure.kind !== 'incompatible'
              ? r
              : fail({ kind: 'lost', message: r.failure.message }),
          ),
        onProgress,
      );
      sent = { connection: c, id };
      link.holdProcess();
    });
  });
}

/** Calls `onTimeout` with `timeoutMs` once that many ms have passed; never when it is undefined. */
function startTimer(
  timeoutMs: number | undefined,
  onTimeout: (timeoutMs: number) => void,
): ReturnType<typeof setTimeout> | undefined {
  if (timeoutMs === undefined) return undefined;
  // Node fires a longer timer at once; 24.8 days is "wait" in practice.
  return setTimeout(() => onTimeout(timeoutMs), Math.min(timeoutMs, MAX_TIMER_MS));
}

/** Settles every request written on a connection as `lost`: it may have been handled. */
function lose(written: Map<string, Written>, message: string): void {
  for (const [id, w] of written) {
    written.delete(id);
    w.settle(fail({ kind: 'lost', message }));
  }
}

/** Feeds one chunk to the connection's line reader and hands on each complete line. */
function readAnswers(socket: Socket, reader: LineReader, written: Map<string, Written>, chunk: string): void {
  if (!reader.push(chunk)) {
    socket.destroy(new Error(`the broker sent an answer line over ${MAX_ANSWER_LINE_BYTES} bytes`));
    return;
  }
  for (let line = reader.next(); line; line = reader.next()) {
    if (!line.ok) {
      socket.destroy(new Error(`the broker sent an answer line over ${MAX_ANSWER_LINE_BYTES} bytes`));
      return;
    }
    takeLine(socket, written, line.text);
  }
}

/** Hands one line to the request it addresses: a progress line to its observer, an answer settles it. */
function takeLine(socket: Socket, written: Map<string, Written>, text: string): void {
  if (text.trim() === '') return;
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    // A line we cannot read could be the answer to any request in flight: none can be trusted.
    socket.destroy(new Error('the broker sent a line that is not JSON'));
    return;
  }
  if (msg === null || typeof msg !== 'object') return;
  const answer = msg as Record<string, unknown>;
  const id = typeof answer.id === 'string' ? answer.id : undefined;
  const w = id === undefined ? undefined : written.get(id);
  if (!w || id === undefined) return;
  // A progress line carries no `ok`: it is about the request, never its answer.
  if (!('ok' in answer) && 'progress' in answer) {
    const progress = readProgress(answer);
    if (progress !== undefined && w.onProgress !== undefined) {
      try {
        w.onProgress(progress);
      } catch {
        // The caller's observer must not cost it the answer.
      }
    }
    return;
  }
  written.delete(id);
  w.settle(readEnvelope(answer));
}

// The longest delay setTimeout takes (2^31 - 1 ms).
const MAX_TIMER_MS = 2_147_483_647;

const cancelledBeforeSending: BrokerFailure = {
  kind: 'cancelled',
  message: 'the request was cancelled before it was sent; nothing was sent',
};

/** The progress a progress line carries, or `undefined` when it carries none readable. */
function readProgress(msg: Record<string, unknown>): RunProgress | undefined {
  if (protocolMismatch(msg.protocol, 'the broker') !== undefined) return undefined;
  const p = msg.progress;
  if (p === null || typeof p !== 'object') return undefined;
  const { elapsedMs, outputBytes, approval } = p as Record<string, unknown>;
  const count = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (!count(elapsedMs) || !count(outputBytes)) return undefined;
  const waiting = readApprovalWaiting(approval);
  return waiting === undefined ? { elapsedMs, outputBytes } : { elapsedMs, outputBytes, approval: waiting };
}

/** The approval a progress line says the run waits for, or `undefined` when it names none readable. */
function readApprovalWaiting(value: unknown): RunProgress['approval'] {
  if (value === null || typeof value !== 'object') return undefined;
  const { id, approve, waitsUntil } = value as Record<string, unknown>;
  return typeof id === 'string' && typeof approve === 'string' && typeof waitsUntil === 'string'
    ? { id, approve, waitsUntil }
    : undefined;
}

/** Reads one answer line addressed to a request in flight. */
function readEnvelope(msg: Record<string, unknown>): BrokerResult<unknown> {
  const mismatch = protocolMismatch(msg.protocol, 'the broker');
  if (mismatch !== undefined) return fail({ kind: 'incompatible', message: mismatch });
  if (msg.ok === true) return { ok: true, value: msg.result };
  const error =
    msg.error !== null && typeof msg.error === 'object' ? (msg.error as Record<string, unknown>) : {};
  if (msg.ok === false)
    return fail({
      kind: 'envelope',
      code: typeof error.code === 'string' ? error.code : 'internal',
      message: typeof error.message === 'string' ? error.message : 'the broker gave no message',
    });
  return fail({ kind: 'lost', message: 'the broker sent an answer that is neither ok nor an error' });
}

/** Why a greeting does not admit the connection, or `undefined` when the broker speaks our protocol. */
function greetingRefusal(r: BrokerResult<unknown>): BrokerFailure | undefined {
  if (r.ok) {
    const named = (r.value as { protocol?: unknown } | null)?.protocol;
    const mismatch = protocolMismatch(named, 'the broker');
    return mismatch === undefined ? undefined : { kind: 'incompatible', message: mismatch };
  }
  const f = r.failure;
  if (f.kind === 'incompatible') return f;
  if (f.kind === 'envelope' && f.code === 'unsupported_protocol')
    return { kind: 'incompatible', message: f.message };
  return { kind: 'unreachable', message: `the broker did not answer hello: ${f.message}` };
}

/** Sends one request on a fresh client and closes it: the `loom` CLI's one call per process. */
export async function brokerRequest<T>(
  socketPath: string,
  body: Record<string, unknown>,
  options: RunCallOptions = {},
): Promise<BrokerResult<T>> {
  const { signal, onProgress, ...clientOptions } = options;
  const client = createBrokerClient({ socketPath, ...clientOptions });
  try {
    return await client.request<T>(body, {
      ...(signal === undefined ? {} : { signal }),
      ...(onProgress === undefined ? {} : { onProgress }),
    });
  } finally {
    await client.close();
  }
}

/** `hello` on a fresh connection. */
export function brokerHello(
  socketPath: string,
  options?: BrokerCallOptions,
): Promise<BrokerResult<HelloResult>> {
  return brokerRequest<HelloResult>(socketPath, { op: 'hello' }, options);
}

/** `list` on a fresh connection. */
export function brokerList(
  socketPath: string,
  params: ListParams = {},
  options?: BrokerCallOptions,
): Promise<BrokerResult<ListResult>> {
  return brokerRequest<ListResult>(socketPath, { ...params, op: 'list' }, options);
}

/** `run` on a fresh connection. */
export function brokerRun(
  socketPath: string,
  params: RunParams,
  options?: RunCallOptions,
): Promise<BrokerResult<CommandAnswer>> {
  return brokerRequest<CommandAnswer>(socketPath, { ...params, op: 'run' }, options);
}

// Who may stand behind a broker socket. Anyone who can write the socket's directory can move the
// broker's socket aside and bind their own, then read every call's arguments and forge every
// answer. So a client connects only to a socket owned by this user (or root), in a directory that
// is not a symlink, is ours (or root's) and is not writable by group or others. The host checks
// the directory the same way before it binds.
/**
 * Why the socket at `socketPath` must not be used, or `undefined` when it may (or nothing is there:
 * connecting then fails as unreachable). Asynchronous on purpose: on Node 20 a synchronous stat of
 * a socket leaves later module resolution un-realpathed (better-sqlite3 then fails to load).
 */
async function socketProblem(socketPath: string): Promise<string | undefined> {
  const me = process.getuid?.();
  if (me === undefined) return undefined;
  const dir = dirname(socketPath);
  try {
    const d = await lstat(dir);
    if (d.isSymbolicLink()) return `${dir} is a symbolic link`;
    if (d.uid !== me && d.uid !== 0) return `${dir} belongs to user ${d.uid}, not to you (${me})`;
    if ((d.mode & 0o022) !== 0) {
      const who = (d.mode & 0o002) !== 0 ? 'every user' : 'its group';
      return `${dir} is writable by ${who} (mode ${(d.mode & 0o777).toString(8)})`;
    }
    const s = await lstat(socketPath);
    if (s.uid !== me && s.uid !== 0) return `${socketPath} belongs to user ${s.uid}, not to you (${me})`;
  } catch {
    return undefined;
  }
  return undefined;
}
