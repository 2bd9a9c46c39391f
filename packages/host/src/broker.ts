import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import {
  answerTooLarge,
  BROKER_PROTOCOL,
  type BrokerAnswer,
  brokerRequestSchema,
  type EnvelopeErrorCode,
  encodeLine,
  exceedsBytes,
  LineReader,
  MAX_ANSWER_LINE_BYTES,
  MAX_INFLIGHT_PER_CONNECTION,
  MAX_REQUEST_LINE_BYTES,
  PROGRESS_INTERVAL_MS,
  protocolMismatch,
} from '@harness/protocol';
import { HostError, HostErrorCode } from './errors';
import type { CommandHost } from './host';
import { connectionRefusal, type PeerPolicy } from './peer';
import { ensurePrivateDir } from './private-dir';
import { RunsInFlight } from './runs-in-flight';
import { validateAgainst } from './validate';

/** A running broker. */
export interface BrokerServer {
  /** The Unix socket the broker listens on. */
  readonly socketPath: string;
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
 * Claims `socketPath` for a new broker: a stale socket left by a dead broker is removed; a live one,
 * or anything that is not a socket, is never touched (a `queue_busy` HostError names it).
 */
export async function claimSocketPath(socketPath: string): Promise<void> {
  let stat: ReturnType<typeof lstatSync> | undefined;
  try {
    stat = lstatSync(socketPath);
  } catch {
    stat = undefined;
  }
  // Before every bind: a directory another user can write is one where our socket can be swapped.
  ensurePrivateDir(dirname(socketPath));
  if (!stat) return;
  if (!stat.isSocket()) {
    throw new HostError(
      HostErrorCode.queue_busy,
      `${socketPath} exists and is not a socket; refusing to replace it. Choose another --socket path or remove the file yourself.`,
    );
  }
  if (await isLive(socketPath)) {
    throw new HostError(
      HostErrorCode.queue_busy,
      `a live broker already listens at ${socketPath}; stop it first (SIGTERM) or choose another --socket path`,
    );
  }
  try {
    unlinkSync(socketPath);
  } catch (error) {
    // Its broker removed it on closing, or another process starting here took the stale one first.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

const envelopeError = (id: string, code: EnvelopeErrorCode, message: string): BrokerAnswer => ({
  protocol: BROKER_PROTOCOL,
  id,
  ok: false,
  error: { code, message },
});

// The id of a request line, for an answer given before the request is handled ('' when none).
function requestId(line: string): string {
  try {
    const id = (JSON.parse(line) as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
}

/**
 * The line of one answer, never over the protocol's answer cap, so one oversized answer fails only
 * its own call: a run answer becomes a failed answer with reason `answer_too_large` (keeping
 * `mayHaveLanded`, `completed` and the label), any other an `answer_too_large` envelope error.
 */
function answerLine(answer: BrokerAnswer): string {
  const line = encodeLine(answer);
  // The cap excludes the newline.
  if (!exceedsBytes(line, MAX_ANSWER_LINE_BYTES + 1)) return line;
  if (answer.ok && 'mayHaveLanded' in answer.result)
    return encodeLine({ ...answer, result: answerTooLarge(answer.result) });
  return encodeLine(
    envelopeError(
      answer.id,
      'answer_too_large',
      `the answer is over the ${MAX_ANSWER_LINE_BYTES}-byte answer limit`,
    ),
  );
}

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
   * whether the broker stopped reading from it. An observation hook (tests, metrics); it must not throw.
   */
  readonly onOutput?: (info: { pendingBytes: number; paused: boolean }) => void;
  /**
   * Who may connect: each connection's peer process is looked up before any of its requests is
   * read, and one of another user, inside a sandbox or of a command this broker runs is answered
   * `forbidden` and closed (docs/security.md). Absent: every connection is served.
   */
  readonly peers?: PeerPolicy;
  /** Told, once, when a connection's peer cannot be looked up here (it is served). */
  readonly onPeerUnknown?: (reason: string) => void;
  /**
   * How often a run that asked for progress gets a progress line, the first once it has been in
   * flight this long (default `PROGRESS_INTERVAL_MS`, 2 s). Tests lower it.
   */
  readonly progressEveryMs?: number;
}

const DEFAULT_OUTPUT_HIGH_WATER = 8 * 1024 * 1024;
const DEFAULT_QUEUE_WAIT_MS = 1_000;
// Bytes of complete request lines a connection may have queued (read, not started); past it the
// socket is paused and the kernel holds the rest.
const MAX_QUEUED_BYTES = 2 * MAX_REQUEST_LINE_BYTES;
// A `cancel` line is short (its target is an id of at most 128 characters); only a line this short
// is looked at before it queues, so a cancel is handled at once, never behind the runs it stops.
const MAX_CANCEL_LINE_BYTES = 1024;

/** True when `text` is a `cancel` request line (valid or not: `handle` judges it). */
function isCancelLine(text: string): boolean {
  if (text.length > MAX_CANCEL_LINE_BYTES || !text.includes('"cancel"')) return false;
  try {
    return (JSON.parse(text) as { op?: unknown } | null)?.op === 'cancel';
  } catch {
    return false;
  }
}

/**
 * Serves `host` on a Unix socket at `socketPath` (mode 0600, newline-delimited JSON, loom-broker/1).
 * Every request is validated against the protocol's JSON Schema before it reaches the host; the
 * host stamps the actor and run, so whatever a request names as actor or run is never read.
 * A client that sends requests without reading the answers is paused (see {@link BrokerOptions}),
 * so the answers held for one connection stay bounded and other connections are unaffected.
 */
export async function serveBroker(
  host: CommandHost,
  socketPath: string,
  options: BrokerOptions = {},
): Promise<BrokerServer> {
  const highWater = options.outputHighWaterBytes ?? DEFAULT_OUTPUT_HIGH_WATER;
  const maxInflight = Math.max(1, options.maxInflightPerConnection ?? MAX_INFLIGHT_PER_CONNECTION);
  const queueWaitMs = options.queueWaitMs ?? DEFAULT_QUEUE_WAIT_MS;
  const progressEveryMs = Math.max(1, options.progressEveryMs ?? PROGRESS_INTERVAL_MS);
  await claimSocketPath(socketPath);
  let stopping = false;
  const sockets = new Set<Socket>();
  const inflight = new Set<Promise<void>>();

  const handle = async (
    line: string,
    runs: RunsInFlight,
    queued: (id: string) => boolean = () => false,
  ): Promise<BrokerAnswer> => {
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
    // A request naming another version is refused by name; one naming none is a bad request.
    const mismatch = typeof protocol === 'string' ? protocolMismatch(protocol, 'the request') : undefined;
    if (mismatch !== undefined) return envelopeError(id, 'unsupported_protocol', mismatch);
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
        const listed = await host.list({
          ...(typeof r.jobId === 'string' ? { jobId: r.jobId } : {}),
          ...(typeof r.ifNoneMatch === 'string' ? { ifNoneMatch: r.ifNoneMatch } : {}),
        });
        return 'forbidden' in listed ? envelopeError(id, 'forbidden', listed.forbidden) : ok(listed);
      }
      case 'cancel':
        return ok({ cancelled: runs.cancel(r.target as string, queued) });
      default: {
        const call = runs.begin(id, r.progress === true);
        try {
          // Only these fields reach the host: an `actor` or `run` in the request is dropped here.
          const answer = await host.run(
            {
              op: 'run',
              command: r.command as string,
              args: r.args as Record<string, unknown>,
              ...(typeof r.loomId === 'string' ? { loomId: r.loomId } : {}),
              ...(typeof r.expectedVersion === 'number' ? { expectedVersion: r.expectedVersion } : {}),
              ...(r.readOnly === true ? { readOnly: true } : {}),
              ...(typeof r.jobId === 'string' ? { jobId: r.jobId } : {}),
            },
            call.control,
          );
          return ok(answer);
        } finally {
          call.end();
        }
      }
    }
  };

  let peerUnknownTold = false;
  // Nothing of the connection is read until its peer is admitted.
  const vet = (socket: Socket, policy: PeerPolicy): void => {
    socket.pause();
    const unknown = (reason: string): void => {
      if (peerUnknownTold) return;
      peerUnknownTold = true;
      options.onPeerUnknown?.(reason);
    };
    void connectionRefusal(socket, policy, unknown).then((refusal) => {
      if (socket.destroyed) return;
      if (refusal !== undefined) {
        socket.end(answerLine(envelopeError('', 'forbidden', `connection refused: ${refusal}`)));
        return;
      }
      socket.resume();
    });
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setEncoding('utf8');
    const reader = new LineReader(MAX_REQUEST_LINE_BYTES);
    let running = 0;
    let paused = false;
    // Complete lines read but not started, with the time they were read.
    const queue: { line: string; at: number }[] = [];
    let queuedBytes = 0;
    let waitTimer: NodeJS.Timeout | undefined;
    const tooLarge = (): BrokerAnswer =>
      envelopeError(
        '',
        'request_too_large',
        `a request line may hold at most ${MAX_REQUEST_LINE_BYTES} bytes`,
      );
    const write = (answer: BrokerAnswer): void => {
      if (!socket.destroyed) socket.write(answerLine(answer));
    };
    // Backpressure: while the connection's unsent answers are over the high-water mark, nothing is
    // started or read (the kernel, not the broker, holds what the client keeps sending).
    // `writableNeedDrain` guarantees a 'drain' event will come to resume the connection.
    const outputBlocked = (): boolean => socket.writableNeedDrain && socket.writableLength > highWater;
    // A progress line is dropped, not queued, while the client is not reading: the next one says more.
    const runs = new RunsInFlight(progressEveryMs, (id, progress) => {
      if (!socket.destroyed && !outputBlocked())
        socket.write(encodeLine({ protocol: BROKER_PROTOCOL, id, progress }));
    });
    const take = (): void => {
      while (queuedBytes <= MAX_QUEUED_BYTES) {
        const line = reader.next();
        if (!line) break;
        if (!line.ok) write(tooLarge());
        else if (isCancelLine(line.text)) {
          // Outside the in-flight slots: a cancel must reach the runs that fill them, and a run
          // still waiting for one (a rare scan of the queue, parsing only the lines' ids).
          const isQueued = (id: string): boolean => queue.some((q) => requestId(q.line) === id);
          void handle(line.text, runs, isQueued)
            .catch((error: unknown) =>
              envelopeError('', 'internal', `the broker failed: ${(error as Error).message}`),
            )
            .then(write);
        } else if (line.text.trim() !== '') {
          queue.push({ line: line.text, at: Date.now() });
          queuedBytes += line.text.length;
        }
      }
    };
    // Fairness: a request that waited `queueWaitMs` for a slot is answered `busy` (nothing ran),
    // whatever its elders hold. Waiting behind the client's own unread answers does not count.
    const expire = (): void => {
      waitTimer = undefined;
      if (socket.destroyed || stopping) return;
      const now = Date.now();
      if (running >= maxInflight && !outputBlocked()) {
        while (queue.length > 0 && (queue[0] as { at: number }).at + queueWaitMs <= now) {
          const { line } = queue.shift() as { line: string };
          queuedBytes -= line.length;
          runs.forget(requestId(line));
          write(
            envelopeError(
              requestId(line),
              'busy',
              `this connection already runs ${maxInflight} requests and none finished within ${queueWaitMs} ms; nothing ran, send it again later`,
            ),
          );
        }
      }
      pump();
    };
    const armWait = (): void => {
      if (waitTimer !== undefined || queue.length === 0 || running < maxInflight) return;
      const head = queue[0] as { at: number };
      waitTimer = setTimeout(expire, Math.max(0, head.at + queueWaitMs - Date.now()));
    };
    const pump = (): void => {
      if (stopping || socket.destroyed) return;
      take();
      while (queue.length > 0 && running < maxInflight && !outputBlocked()) {
        const { line } = queue.shift() as { line: string };
        queuedBytes -= line.length;
        running++;
        const p = handle(line, runs)
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
        take();
      }
      if (running < maxInflight && waitTimer !== undefined) {
        clearTimeout(waitTimer);
        waitTimer = undefined;
      }
      armWait();
      const block = outputBlocked() || queuedBytes > MAX_QUEUED_BYTES;
      if (block && !paused) {
        paused = true;
        socket.pause();
      } else if (!block && paused) {
        paused = false;
        socket.resume();
      }
    };
    socket.on('data', (chunk: string) => {
      // Complete lines may wait in the reader while the connection is paused; an unterminated line
      // past the cap cannot be answered by id, so the connection ends.
      if (!reader.push(chunk)) {
        reader.clear();
        write(tooLarge());
        socket.end();
        return;
      }
      pump();
    });
    socket.on('drain', pump);
    socket.on('error', () => socket.destroy());
    if (options.peers !== undefined) vet(socket, options.peers);
    socket.on('close', () => {
      reader.clear();
      queue.length = 0;
      clearTimeout(waitTimer);
      sockets.delete(socket);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new HostError(HostErrorCode.queue_busy, `cannot listen at ${socketPath}: ${error.message}`, {
          cause: error,
        }),
      ),
    );
    // The umask makes the socket 0600 from the moment it exists; chmod below states it again.
    const old = process.umask(0o177);
    try {
      server.listen(socketPath, () => resolve());
    } finally {
      process.umask(old);
    }
  });
  chmodSync(socketPath, 0o600);

  let closing: Promise<void> | undefined;
  return {
    socketPath,
    close() {
      closing ??= (async () => {
        stopping = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.allSettled([...inflight]);
        for (const s of sockets) s.destroy();
        await stopped;
        try {
          unlinkSync(socketPath);
        } catch {
          // Already gone: server.close removes it on some platforms.
        }
      })();
      return closing;
    },
  };
}
