import { createConnection, type Socket } from 'node:net';
import { readAnswer } from './answer';
import type { CallOptions, HostClient, ListOutcome, RunOutcome, RunRequest } from './types';

/** The broker socket protocol this client speaks (docs/protocol.md). */
export const BROKER_PROTOCOL = 'loom-broker/1';

// A request line is at most 1 MiB, but an answer line may be longer (it carries a command's bounded
// output); past this a connection is dropped rather than buffered without bound.
const MAX_ANSWER_LINE = 32 * 1024 * 1024;

type Envelope = { ok: true; result: unknown } | { ok: false; code: string };
type Settle = (e: Envelope | 'lost') => void;

interface Pending {
  settle: Settle;
  timer: NodeJS.Timeout | undefined;
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
 */
export function createSocketHostClient(options: SocketClientOptions): HostClient {
  const timeoutMs = options.timeoutMs ?? 120_000;
  let socket: Socket | undefined;
  let connecting: Promise<Socket | undefined> | undefined;
  const pending = new Map<string, Pending>();
  let nextId = 0;
  let closed = false;

  function failAll(): void {
    for (const [id, p] of pending) {
      pending.delete(id);
      if (p.timer) clearTimeout(p.timer);
      p.settle('lost');
    }
  }

  function onLine(line: string): void {
    if (line.trim() === '') return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      // A line we cannot read could be the answer to any request in flight: none can be trusted.
      socket?.destroy();
      return;
    }
    if (typeof msg !== 'object' || msg === null) return;
    const m = msg as Record<string, unknown>;
    const id = typeof m.id === 'string' ? m.id : undefined;
    const p = id === undefined ? undefined : pending.get(id);
    if (!p || id === undefined) return;
    pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    if (m.protocol === BROKER_PROTOCOL && m.ok === true) {
      p.settle({ ok: true, result: m.result });
    } else if (m.protocol === BROKER_PROTOCOL && m.ok === false) {
      const err = m.error as Record<string, unknown> | undefined;
      p.settle({ ok: false, code: typeof err?.code === 'string' ? err.code : 'internal' });
    } else {
      p.settle('lost');
    }
  }

  function connect(): Promise<Socket | undefined> {
    if (socket && !socket.destroyed) return Promise.resolve(socket);
    if (connecting) return connecting;
    connecting = new Promise<Socket | undefined>((resolve) => {
      const s = createConnection(options.queuePath);
      let buffer = '';
      s.setEncoding('utf8');
      s.once('connect', () => {
        socket = s;
        connecting = undefined;
        resolve(s);
      });
      s.on('data', (chunk: string) => {
        buffer += chunk;
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          onLine(line);
          nl = buffer.indexOf('\n');
        }
        if (buffer.length > MAX_ANSWER_LINE) s.destroy();
      });
      s.on('error', () => {
        // 'close' follows; a connect error resolves undefined below.
      });
      s.on('close', () => {
        if (socket === s) socket = undefined;
        if (connecting) {
          connecting = undefined;
          resolve(undefined);
        }
        failAll();
      });
      s.unref();
    });
    return connecting;
  }

  /** Sends one request; `not_sent` when no connection could be made, `lost` when sent and unanswered. */
  async function request(body: Record<string, unknown>): Promise<Envelope | 'lost' | 'not_sent'> {
    if (closed) return 'not_sent';
    const s = await connect();
    if (!s) return 'not_sent';
    const id = `c${++nextId}`;
    const line = `${JSON.stringify({ protocol: BROKER_PROTOCOL, id, ...body })}\n`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (pending.delete(id)) resolve('lost');
      }, timeoutMs);
      timer.unref();
      pending.set(id, { settle: resolve, timer });
      s.write(line);
    });
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
      if (!r.ok) {
        // The broker could not handle the request itself, so nothing ran — except an internal
        // failure, after which nobody can say.
        if (r.code === 'bad_request' || r.code === 'request_too_large')
          return { kind: 'not_sent', code: 'invalid_input' };
        if (r.code === 'unsupported_protocol') return { kind: 'not_sent', code: 'command_failed' };
        if (r.code === 'forbidden') {
          // The broker refused the request before it reached the command layer: the same
          // refusal the CLI path reports as an answer.
          const answer = {
            ok: false,
            id: req.command,
            code: 'forbidden',
            mayHaveLanded: false,
            completed: [],
            body: null,
            hasLabel: false,
          };
          return { kind: 'answer', answer };
        }
        return { kind: 'lost' };
      }
      const answer = readAnswer(r.result);
      return answer ? { kind: 'answer', answer } : { kind: 'lost' };
    },
    async close(): Promise<void> {
      closed = true;
      socket?.destroy();
      failAll();
    },
  };
}
