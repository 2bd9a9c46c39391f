// The fast-path host client: the broker's socket protocol spoken directly (docs/protocol.md,
// "The broker socket protocol"), with the same outcomes the CLI client gives.
import { createConnection, type Socket } from 'node:net';
import { isRecord } from '../json';
import { readAnswer } from './answer';
import type { CallOptions, CommandAnswer, HostClient, ListOutcome, RunOutcome, RunRequest } from './types';

/** The broker socket protocol this client speaks (docs/protocol.md). */
export const BROKER_PROTOCOL = 'loom-broker/1';

// A request line is at most 1 MiB, but an answer line may be longer (it carries a command's bounded
// output); past this a connection is dropped rather than buffered without bound.
const MAX_ANSWER_LINE = 32 * 1024 * 1024;

/** A broker answer line: the request was handled (`result`), or the broker refused it (`code`). */
type Envelope = { ok: true; result: unknown } | { ok: false; code: string };
/** What became of one request: its envelope, or `lost` when no readable answer came back. */
type Reply = Envelope | 'lost';

interface Pending {
  settle: (reply: Reply) => void;
  timer: NodeJS.Timeout;
}

/** Options of {@link createSocketHostClient}. */
export interface SocketClientOptions {
  queuePath: string;
  /** Per request; a request unanswered by then reads as lost. Default 120 s. */
  timeoutMs?: number;
}

/**
 * A host client that speaks the broker's socket protocol directly: one connection per client,
 * newline-delimited JSON, requests multiplexed by id, reconnecting after a failure. Same broker,
 * same grants and attribution as the CLI path, without a process start per call.
 *
 * Each new connection first sends `hello`; a broker that does not answer it as `loom-broker/1`
 * (`unsupported_protocol`, an unreadable answer, none in time) is treated like one that cannot be
 * reached: the connection is dropped and no request waiting on it is sent.
 */
export function createSocketHostClient(options: SocketClientOptions): HostClient {
  const timeoutMs = options.timeoutMs ?? 120_000;
  /** The connection in use: open, and past its `hello`. */
  let socket: Socket | undefined;
  /** The connection being opened, which every request arriving meanwhile waits for. */
  let connecting: Promise<Socket | undefined> | undefined;
  const pending = new Map<string, Pending>();
  let nextId = 0;
  let closed = false;

  function failAll(): void {
    for (const [id, p] of pending) {
      pending.delete(id);
      clearTimeout(p.timer);
      p.settle('lost');
    }
  }

  // An idle connection must not keep the process alive, but one with a request in flight must:
  // otherwise a process whose only work is that request (`harness call` beside a running serve)
  // exits before the answer arrives.
  function settleRef(s: Socket): void {
    if (pending.size === 0) s.unref();
    else s.ref();
  }

  function onLine(s: Socket, line: string): void {
    if (line.trim() === '') return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      // A line we cannot read could be the answer to any request in flight: none can be trusted.
      s.destroy();
      return;
    }
    if (!isRecord(msg)) return;
    const id = typeof msg.id === 'string' ? msg.id : undefined;
    const p = id === undefined ? undefined : pending.get(id);
    if (!p || id === undefined) return;
    pending.delete(id);
    clearTimeout(p.timer);
    settleRef(s);
    p.settle(readEnvelope(msg));
  }

  /** Writes one request on `s` and waits for its answer, `lost` past the timeout or a drop. */
  function exchange(s: Socket, body: Record<string, unknown>): Promise<Reply> {
    const id = `c${++nextId}`;
    const line = `${JSON.stringify({ protocol: BROKER_PROTOCOL, id, ...body })}\n`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (pending.delete(id)) resolve('lost');
      }, timeoutMs);
      timer.unref();
      pending.set(id, { settle: resolve, timer });
      settleRef(s);
      s.write(line);
    });
  }

  /** Opens a connection and greets the broker; `undefined` when either fails. */
  function open(): Promise<Socket | undefined> {
    return new Promise<Socket | undefined>((resolve) => {
      const s = createConnection(options.queuePath);
      let buffer = '';
      s.setEncoding('utf8');
      s.once('connect', async () => {
        const hello = await exchange(s, { op: 'hello' });
        if (!speaksOurProtocol(hello) || closed) {
          s.destroy();
          resolve(undefined);
          return;
        }
        socket = s;
        resolve(s);
      });
      s.on('data', (chunk: string) => {
        buffer += chunk;
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          onLine(s, line);
          nl = buffer.indexOf('\n');
        }
        if (buffer.length > MAX_ANSWER_LINE) s.destroy();
      });
      s.on('error', () => {
        // 'close' follows, and settles what is still open.
      });
      s.on('close', () => {
        if (socket === s) socket = undefined;
        // A connection that failed before its hello was answered never becomes usable.
        resolve(undefined);
        failAll();
      });
      // Referenced while connecting: the request that asked for the connection is waiting on it.
    });
  }

  function connect(): Promise<Socket | undefined> {
    if (socket && !socket.destroyed) return Promise.resolve(socket);
    connecting ??= open().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  /** Sends one request; `not_sent` when no greeted connection could be made, `lost` when sent and unanswered. */
  async function request(body: Record<string, unknown>): Promise<Reply | 'not_sent'> {
    if (closed) return 'not_sent';
    const s = await connect();
    if (!s) return 'not_sent';
    return exchange(s, body);
  }

  return {
    kind: 'socket',
    async list(opts: CallOptions = {}): Promise<ListOutcome> {
      if (opts.signal?.aborted) return { ok: false, code: 'cancelled' };
      const r = await request({ op: 'list', ...(opts.jobId !== undefined ? { jobId: opts.jobId } : {}) });
      if (r === 'lost' || r === 'not_sent' || !r.ok) return { ok: false, code: 'command_failed' };
      return { ok: true, listing: r.result };
    },
    async run(req: RunRequest, opts: CallOptions = {}): Promise<RunOutcome> {
      if (opts.signal?.aborted) return { kind: 'not_sent', code: 'cancelled' };
      const body: Record<string, unknown> = {
        op: 'run',
        command: req.command,
        args: req.args,
        readOnly: req.readOnly === true,
      };
      if (req.loomId !== undefined) body.loomId = req.loomId;
      if (req.expectedVersion !== undefined) body.expectedVersion = req.expectedVersion;
      if (opts.jobId !== undefined) body.jobId = opts.jobId;
      const r = await request(body);
      if (r === 'not_sent') return { kind: 'not_sent', code: 'command_failed' };
      if (r === 'lost') return { kind: 'lost' };
      if (r.ok) {
        const answer = readAnswer(r.result);
        return answer ? { kind: 'answer', answer } : { kind: 'lost' };
      }
      // The broker could not handle the request itself, so nothing ran — except an internal
      // failure, after which nobody can say.
      if (r.code === 'bad_request' || r.code === 'request_too_large')
        return { kind: 'not_sent', code: 'invalid_input' };
      if (r.code === 'unsupported_protocol') return { kind: 'not_sent', code: 'command_failed' };
      // The broker refused the request before it reached the command layer: the same refusal the
      // CLI path reports as an answer.
      if (r.code === 'forbidden') return { kind: 'answer', answer: brokerForbidden(req.command) };
      return { kind: 'lost' };
    },
    async close(): Promise<void> {
      closed = true;
      socket?.destroy();
      failAll();
    },
  };
}

/** Reads one answer line addressed to a request in flight. */
function readEnvelope(msg: Record<string, unknown>): Reply {
  if (msg.protocol !== BROKER_PROTOCOL) return 'lost';
  if (msg.ok === true) return { ok: true, result: msg.result };
  if (msg.ok === false) {
    const err = isRecord(msg.error) ? msg.error : undefined;
    return { ok: false, code: typeof err?.code === 'string' ? err.code : 'internal' };
  }
  return 'lost';
}

/** True when the broker answered `hello` as a `loom-broker/1` broker. */
function speaksOurProtocol(hello: Reply): boolean {
  return hello !== 'lost' && hello.ok && isRecord(hello.result) && hello.result.protocol === BROKER_PROTOCOL;
}

function brokerForbidden(command: string): CommandAnswer {
  return {
    ok: false,
    id: command,
    code: 'forbidden',
    mayHaveLanded: false,
    completed: [],
    body: null,
    hasLabel: false,
  };
}
