import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { HOST_ERROR_CODES, HostError } from './errors';
import type { CommandHost } from './host';
import { BROKER_PROTOCOL, type BrokerAnswer, type EnvelopeErrorCode, MAX_LINE_BYTES } from './protocol';
import { brokerRequestSchema } from './protocol-schema';
import { validateAgainst } from './validate';

/** A running broker. */
export interface BrokerServer {
  readonly queuePath: string;
  /** Stops accepting, waits for calls in flight, removes the socket. Idempotent. */
  close(): Promise<void>;
}

/** True when something accepts connections at `path`. */
function isLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Claims `queuePath` for a new broker: a stale socket left by a dead broker is removed; a live one,
 * or anything that is not a socket, is never touched (a `queue_busy` HostError names it).
 */
export async function claimQueuePath(queuePath: string): Promise<void> {
  let stat: ReturnType<typeof lstatSync> | undefined;
  try {
    stat = lstatSync(queuePath);
  } catch {
    stat = undefined;
  }
  if (!stat) {
    mkdirSync(dirname(queuePath), { recursive: true, mode: 0o700 });
    return;
  }
  if (!stat.isSocket()) {
    throw new HostError(
      HOST_ERROR_CODES.queueBusy,
      `${queuePath} exists and is not a socket; refusing to replace it. Choose another --queue path or remove the file yourself.`,
    );
  }
  if (await isLive(queuePath)) {
    throw new HostError(
      HOST_ERROR_CODES.queueBusy,
      `a live broker already listens at ${queuePath}; stop it first (SIGTERM) or choose another --queue path`,
    );
  }
  unlinkSync(queuePath);
}

const envelopeError = (id: string, code: EnvelopeErrorCode, message: string): BrokerAnswer => ({
  protocol: BROKER_PROTOCOL,
  id,
  ok: false,
  error: { code, message },
});

/**
 * Per-connection limits of {@link serveBroker}. The defaults suit every client; tests lower them to
 * reach the limits with little traffic.
 */
export interface BrokerOptions {
  /**
   * While a connection's unsent answers exceed this many bytes, the broker reads no further request
   * from it (default 8 MiB); reading resumes once the client has drained them.
   */
  readonly outputHighWaterBytes?: number;
  /** Requests of one connection handled at once; later ones wait, unread (default 32). */
  readonly maxInflightPerConnection?: number;
  /**
   * Called after each answer is handed to a connection, with the bytes it still holds unsent and
   * whether the broker stopped reading from it. An observation hook (tests, metrics); it must not throw.
   */
  readonly onOutput?: (info: { pendingBytes: number; paused: boolean }) => void;
}

const DEFAULT_OUTPUT_HIGH_WATER = 8 * 1024 * 1024;
const DEFAULT_MAX_INFLIGHT = 32;

/**
 * Serves `host` on a Unix socket at `queuePath` (mode 0600, newline-delimited JSON, loom-broker/1).
 * Every request is validated against the protocol's JSON Schema before it reaches the host; the
 * host stamps the actor and run, so whatever a request names as actor or run is never read.
 * A client that sends requests without reading the answers is paused (see {@link BrokerOptions}),
 * so the answers held for one connection stay bounded and other connections are unaffected.
 */
export async function serveBroker(
  host: CommandHost,
  queuePath: string,
  options: BrokerOptions = {},
): Promise<BrokerServer> {
  const highWater = options.outputHighWaterBytes ?? DEFAULT_OUTPUT_HIGH_WATER;
  const maxInflight = Math.max(1, options.maxInflightPerConnection ?? DEFAULT_MAX_INFLIGHT);
  await claimQueuePath(queuePath);
  let stopping = false;
  const sockets = new Set<Socket>();
  const inflight = new Set<Promise<void>>();

  const handle = async (line: string): Promise<BrokerAnswer> => {
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      return envelopeError('', 'bad_request', 'the request line is not JSON');
    }
    const id =
      request !== null && typeof request === 'object' && typeof (request as { id?: unknown }).id === 'string'
        ? (request as { id: string }).id
        : '';
    const protocol = (request as { protocol?: unknown } | null)?.protocol;
    if (typeof protocol === 'string' && protocol !== BROKER_PROTOCOL) {
      return envelopeError(
        id,
        'unsupported_protocol',
        `this broker speaks ${BROKER_PROTOCOL}; the request names ${protocol}`,
      );
    }
    const errors = validateAgainst(brokerRequestSchema, request);
    if (errors.length > 0) {
      return envelopeError(
        id,
        'bad_request',
        `the request does not match ${BROKER_PROTOCOL}: ${errors
          .slice(0, 5)
          .map((e) => `${e.path} ${e.message}`)
          .join('; ')}`,
      );
    }
    const r = request as Record<string, unknown>;
    const ok = (result: unknown): BrokerAnswer =>
      ({ protocol: BROKER_PROTOCOL, id, ok: true, result }) as BrokerAnswer;
    switch (r.op) {
      case 'hello':
        return ok({ protocol: BROKER_PROTOCOL, run: host.scope.run, agent: host.scope.actor });
      case 'list': {
        const listed = host.list(typeof r.jobId === 'string' ? { jobId: r.jobId } : {});
        return 'forbidden' in listed ? envelopeError(id, 'forbidden', listed.forbidden) : ok(listed);
      }
      default: {
        // Only these fields reach the host: an `actor` or `run` in the request is dropped here.
        const answer = await host.run({
          op: 'run',
          command: r.command as string,
          args: r.args as Record<string, unknown>,
          ...(typeof r.loomId === 'string' ? { loomId: r.loomId } : {}),
          ...(typeof r.expectedVersion === 'number' ? { expectedVersion: r.expectedVersion } : {}),
          ...(r.readOnly === true ? { readOnly: true } : {}),
          ...(typeof r.jobId === 'string' ? { jobId: r.jobId } : {}),
        });
        return ok(answer);
      }
    }
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setEncoding('utf8');
    let buffer = '';
    let running = 0;
    let paused = false;
    const tooLarge = (): BrokerAnswer =>
      envelopeError('', 'request_too_large', `a request line may hold at most ${MAX_LINE_BYTES} bytes`);
    const write = (answer: BrokerAnswer): void => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(answer)}\n`);
    };
    // Backpressure: a line is only taken from `buffer` while the connection's unsent answers are
    // under the high-water mark and few of its requests run; otherwise the socket is paused, so
    // the kernel, not the broker, holds what the client keeps sending.
    // `writableNeedDrain` guarantees a 'drain' event will come to resume the connection.
    const blocked = (): boolean =>
      (socket.writableNeedDrain && socket.writableLength > highWater) || running >= maxInflight;
    const pump = (): void => {
      while (!stopping && !socket.destroyed && !blocked()) {
        const nl = buffer.indexOf('\n');
        if (nl < 0) break;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim() === '') continue;
        if (Buffer.byteLength(line) > MAX_LINE_BYTES) {
          write(tooLarge());
          continue;
        }
        running++;
        const p = handle(line)
          .catch((error: unknown) =>
            envelopeError('', 'internal', `the broker failed: ${(error as Error).message}`),
          )
          .then((answer) => {
            running--;
            write(answer);
            pump();
            options.onOutput?.({ pendingBytes: socket.writableLength, paused });
          });
        const tracked = p.finally(() => inflight.delete(tracked));
        inflight.add(tracked);
      }
      if (blocked() && !stopping) {
        if (!paused) {
          paused = true;
          socket.pause();
        }
      } else if (paused) {
        paused = false;
        socket.resume();
      }
    };
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      // Only the unterminated tail counts against the line limit: complete lines may wait here
      // while the connection is paused.
      const tail = buffer.length - buffer.lastIndexOf('\n') - 1;
      if (tail > MAX_LINE_BYTES || Buffer.byteLength(buffer.slice(buffer.length - tail)) > MAX_LINE_BYTES) {
        buffer = '';
        write(tooLarge());
        socket.end();
        return;
      }
      pump();
    });
    socket.on('drain', pump);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      buffer = '';
      sockets.delete(socket);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new HostError(HOST_ERROR_CODES.queueBusy, `cannot listen at ${queuePath}: ${error.message}`, {
          cause: error,
        }),
      ),
    );
    // The umask makes the socket 0600 from the moment it exists; chmod below states it again.
    const old = process.umask(0o177);
    try {
      server.listen(queuePath, () => resolve());
    } finally {
      process.umask(old);
    }
  });
  chmodSync(queuePath, 0o600);

  let closing: Promise<void> | undefined;
  return {
    queuePath,
    close() {
      closing ??= (async () => {
        stopping = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.allSettled([...inflight]);
        for (const s of sockets) s.destroy();
        await stopped;
        try {
          unlinkSync(queuePath);
        } catch {
          // Already gone: server.close removes it on some platforms.
        }
      })();
      return closing;
    },
  };
}
