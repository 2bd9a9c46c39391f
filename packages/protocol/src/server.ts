// `@harness/protocol/server`: the server side of loom-broker/2, what a broker (ours, or a third
// party's in TypeScript) serves its connections through, so that it only says how each request is
// answered. Node-free (it drives any socket of the `LineSocket` shape); a subpath of its own because
// it parses with zod, which the `loom` CLI's per-call path through the root entry never loads.
import { answerLine, envelopeAnswer } from './bounds';
import { MAX_INFLIGHT_PER_CONNECTION } from './limits';
import { type LineHandler, type LineSocket, ServedConnection, type ServerState } from './served-connection';

export type { LineConnection, LineHandler, LineSession, LineSocket } from './served-connection';

/**
 * Per-connection limits of {@link serveLines}. The defaults suit every client; tests lower them to
 * reach the limits with little traffic.
 */
export interface ServeLinesOptions<S extends LineSocket = LineSocket> {
  /**
   * While a connection's unsent answers exceed this many bytes, nothing further is read from it or
   * started (default 8 MiB); reading resumes once the client has drained them.
   */
  readonly outputHighWaterBytes?: number;
  /** Requests of one connection handled at once; later ones wait in a queue (default `MAX_INFLIGHT_PER_CONNECTION`). */
  readonly maxInflightPerConnection?: number;
  /**
   * How long a request may wait for one of its connection's in-flight slots (default 1 s). Past
   * it, the request is answered with the envelope error `busy` (nothing ran), so calls that hang
   * until their own timeout never hold an innocent call past its bound.
   */
  readonly queueWaitMs?: number;
  /**
   * Called after each answer is handed to a connection, with the bytes it still holds unsent and
   * whether reading from it is paused. An observation hook (tests, metrics); it must not throw.
   */
  readonly onOutput?: (info: { pendingBytes: number; paused: boolean }) => void;
  /**
   * Decides, before anything of a connection is read, whether it is served: a reason refuses it
   * (answered `forbidden`, `connection refused: <reason>`, and closed). Absent: every connection is.
   */
  readonly admit?: (socket: S) => Promise<string | undefined>;
}

/** The connections of one {@link serveLines}. */
export interface LineService<S extends LineSocket = LineSocket> {
  /** Serves one new connection: a `node:net` server's connection listener. */
  serve(socket: S): void;
  /** Starts no further request, waits for those in flight, then destroys every connection. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_OUTPUT_HIGH_WATER = 8 * 1024 * 1024;
const DEFAULT_QUEUE_WAIT_MS = 1_000;

/**
 * Serves loom-broker/2 over newline-framed connections: each request line is read within
 * `MAX_REQUEST_LINE_BYTES`, parsed with {@link parseRequest} (a line that is not a request is
 * answered with its envelope error and never reaches `handler`), answered through the session
 * `handler` gives for its connection, and its answer written within `MAX_ANSWER_LINE_BYTES`.
 * A `cancel` is handled as soon as it arrives, outside the connection's slots; the rest follow the
 * limits of {@link ServeLinesOptions}. A handler's throw is answered `internal`.
 */
export function serveLines<S extends LineSocket = LineSocket>(
  handler: LineHandler,
  options: ServeLinesOptions<S> = {},
): LineService<S> {
  const limits = {
    highWater: options.outputHighWaterBytes ?? DEFAULT_OUTPUT_HIGH_WATER,
    maxInflight: Math.max(1, options.maxInflightPerConnection ?? MAX_INFLIGHT_PER_CONNECTION),
    queueWaitMs: options.queueWaitMs ?? DEFAULT_QUEUE_WAIT_MS,
    onOutput: options.onOutput,
  };
  const sockets = new Set<S>();
  const inflight = new Set<Promise<void>>();
  const server: ServerState & { stopping: boolean } = {
    stopping: false,
    track(handling) {
      const tracked = handling.finally(() => inflight.delete(tracked));
      inflight.add(tracked);
    },
  };
  let closing: Promise<void> | undefined;
  return {
    serve(socket) {
      sockets.add(socket);
      socket.setEncoding('utf8');
      const connection = new ServedConnection(socket, handler, limits, server);
      socket.on('data', (chunk) => connection.read(chunk));
      socket.on('drain', () => connection.pump());
      socket.on('error', () => socket.destroy());
      if (options.admit !== undefined) admit(socket, options.admit);
      socket.on('close', () => {
        connection.closed();
        sockets.delete(socket);
      });
    },
    close() {
      closing ??= (async () => {
        server.stopping = true;
        await Promise.allSettled([...inflight]);
        for (const s of sockets) s.destroy();
      })();
      return closing;
    },
  };
}

/** Reads nothing of `socket` until `decide` admits it; a refused one is told why and closed. */
function admit<S extends LineSocket>(socket: S, decide: (socket: S) => Promise<string | undefined>): void {
  socket.pause();
  void decide(socket).then((refusal) => {
    if (socket.destroyed) return;
    if (refusal !== undefined) {
      socket.end(answerLine(envelopeAnswer('', 'forbidden', `connection refused: ${refusal}`)));
      return;
    }
    socket.resume();
  });
}
