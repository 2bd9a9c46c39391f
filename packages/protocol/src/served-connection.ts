// One connection a line server serves: its queue of request lines, its in-flight slots, the timer
// that answers a request waiting too long for one, and its backpressure (docs/protocol.md, "Framing"
// and "Limits"; docs/host.md, "backpressure" and "fairness").
import { answerLine, envelopeAnswer } from './bounds';
import { encodeLine, LineReader } from './framing';
import { MAX_REQUEST_LINE_BYTES } from './limits';
import { parseRequest, peekRequest } from './parse';
import type { BrokerAnswer, BrokerReply, BrokerRequest, RunProgress } from './types';
import { BROKER_PROTOCOL } from './version';

/** The part of a socket a line server drives; a `node:net` Socket is one. */
export interface LineSocket {
  readonly destroyed: boolean;
  readonly writableNeedDrain: boolean;
  readonly writableLength: number;
  setEncoding(encoding: 'utf8'): unknown;
  write(text: string): unknown;
  end(): unknown;
  end(text: string): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy(): unknown;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  on(event: 'drain' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** What a handler may ask of the connection it serves. */
export interface LineConnection {
  /**
   * Sends a progress line for request `id`. Dropped, not queued, while the client is not reading
   * its answers: the next one says more.
   */
  progress(id: string, progress: RunProgress): void;
  /** Whether a request of this id waits, unread, for one of the connection's slots. */
  queued(id: string): boolean;
}

/** How one connection is answered: what a {@link LineHandler} gives for it. */
export interface LineSession {
  /**
   * Answers one request (parsed: it never sees a line that is not a request). A throw is answered
   * with the envelope error `internal`.
   */
  answer(request: BrokerRequest): Promise<BrokerReply>;
  /** Told that a queued request will never reach `answer`: no slot freed in time, it was answered `busy`. */
  dropped?(id: string): void;
}

/** Gives the session that answers one new connection. */
export type LineHandler = (connection: LineConnection) => LineSession;

/** The limits of each connection, resolved. */
export interface ConnectionLimits {
  readonly highWater: number;
  readonly maxInflight: number;
  readonly queueWaitMs: number;
  readonly onOutput: ((info: { pendingBytes: number; paused: boolean }) => void) | undefined;
}

/** What a connection shares with the server that accepted it. */
export interface ServerState {
  /** Set once the server closes: no further request is started. */
  readonly stopping: boolean;
  /** Holds a request's handling until it settles, so closing waits for it. */
  track(handling: Promise<void>): void;
}

// Bytes of complete request lines a connection may have queued (read, not started); past it the
// socket is paused and the kernel holds the rest.
const MAX_QUEUED_BYTES = 2 * MAX_REQUEST_LINE_BYTES;
// A `cancel` line is short (its target is an id of at most 128 characters); only a line this short
// is looked at before it queues, so a cancel is handled at once, never behind the runs it stops.
const MAX_CANCEL_LINE_BYTES = 1024;

/** True when `text` is a `cancel` request line (valid or not: parsing judges it). */
function isCancelLine(text: string): boolean {
  if (text.length > MAX_CANCEL_LINE_BYTES || !text.includes('"cancel"')) return false;
  return peekRequest(text).op === 'cancel';
}

const tooLarge = (): BrokerAnswer =>
  envelopeAnswer('', 'request_too_large', `a request line may hold at most ${MAX_REQUEST_LINE_BYTES} bytes`);

const internal = (error: unknown): BrokerAnswer =>
  envelopeAnswer('', 'internal', `the broker failed: ${(error as Error).message}`);

/**
 * One connection of a line server. Requests are handled concurrently, at most `maxInflight` at
 * once; later ones queue, and one that waits `queueWaitMs` for a slot is answered `busy`. While the
 * connection's unsent answers are over `highWater` nothing is started or read: the kernel, not the
 * server, holds what the client keeps sending.
 */
export class ServedConnection {
  readonly #socket: LineSocket;
  readonly #limits: ConnectionLimits;
  readonly #server: ServerState;
  readonly #session: LineSession;
  readonly #reader = new LineReader(MAX_REQUEST_LINE_BYTES);
  // Complete lines read but not started, with the time they were read.
  readonly #queue: { line: string; at: number }[] = [];
  #queuedBytes = 0;
  #running = 0;
  #paused = false;
  #waitTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(socket: LineSocket, handler: LineHandler, limits: ConnectionLimits, server: ServerState) {
    this.#socket = socket;
    this.#limits = limits;
    this.#server = server;
    this.#session = handler({
      progress: (id, progress) => this.#progress(id, progress),
      queued: (id) => this.#queue.some((q) => peekRequest(q.line).id === id),
    });
  }

  /** Takes a chunk of the socket's text. */
  read(chunk: string): void {
    // Complete lines may wait in the reader while the connection is paused; an unterminated line
    // past the cap cannot be answered by id, so the connection ends.
    if (!this.#reader.push(chunk)) {
      this.#reader.clear();
      this.#write(tooLarge());
      this.#socket.end();
      return;
    }
    this.pump();
  }

  /** Starts what the slots and the output allow, then pauses or resumes the socket to match. */
  pump(): void {
    if (this.#server.stopping || this.#socket.destroyed) return;
    this.#take();
    while (this.#queue.length > 0 && this.#running < this.#limits.maxInflight && !this.#outputBlocked()) {
      this.#start(this.#dequeue());
      this.#take();
    }
    if (this.#running < this.#limits.maxInflight && this.#waitTimer !== undefined) {
      clearTimeout(this.#waitTimer);
      this.#waitTimer = undefined;
    }
    this.#armWait();
    this.#throttle();
  }

  /** Forgets everything held for the connection, once its socket closed. */
  closed(): void {
    this.#reader.clear();
    this.#queue.length = 0;
    clearTimeout(this.#waitTimer);
  }

  /** Moves complete lines from the reader to the queue while the queue has room. */
  #take(): void {
    while (this.#queuedBytes <= MAX_QUEUED_BYTES) {
      const line = this.#reader.next();
      if (!line) break;
      if (!line.ok) this.#write(tooLarge());
      // Outside the in-flight slots: a cancel must reach the runs that fill them, and a run still
      // waiting for one (a rare scan of the queue, reading only the lines' ids).
      else if (isCancelLine(line.text))
        void this.#answer(line.text)
          .catch(internal)
          .then((a) => this.#write(a));
      else if (line.text.trim() !== '') {
        this.#queue.push({ line: line.text, at: Date.now() });
        this.#queuedBytes += line.text.length;
      }
    }
  }

  #dequeue(): string {
    const { line } = this.#queue.shift() as { line: string };
    this.#queuedBytes -= line.length;
    return line;
  }

  /** Handles one line in a slot; its answer frees the slot. */
  #start(line: string): void {
    this.#running++;
    const handling = this.#answer(line)
      .catch(internal)
      .then((answer) => {
        this.#running--;
        this.#write(answer);
        this.pump();
        this.#limits.onOutput?.({ pendingBytes: this.#socket.writableLength, paused: this.#paused });
      });
    this.#server.track(handling);
  }

  /** The answer to one request line: parsed at this edge, then the session's. */
  async #answer(line: string): Promise<BrokerAnswer> {
    const parsed = parseRequest(line);
    if (!parsed.ok) return envelopeAnswer(parsed.id, parsed.error.code, parsed.error.message);
    const reply = await this.#session.answer(parsed.request);
    return { protocol: BROKER_PROTOCOL, id: parsed.request.id, ...reply };
  }

  // Fairness: a request that waited `queueWaitMs` for a slot is answered `busy` (nothing ran),
  // whatever its elders hold. Waiting behind the client's own unread answers does not count.
  #expire(): void {
    this.#waitTimer = undefined;
    if (this.#socket.destroyed || this.#server.stopping) return;
    const now = Date.now();
    const { maxInflight, queueWaitMs } = this.#limits;
    if (this.#running >= maxInflight && !this.#outputBlocked()) {
      while (this.#queue.length > 0 && (this.#queue[0] as { at: number }).at + queueWaitMs <= now) {
        const { id } = peekRequest(this.#dequeue());
        this.#session.dropped?.(id);
        this.#write(
          envelopeAnswer(
            id,
            'busy',
            `this connection already runs ${maxInflight} requests and none finished within ${queueWaitMs} ms; nothing ran, send it again later`,
          ),
        );
      }
    }
    this.pump();
  }

  #armWait(): void {
    if (this.#waitTimer !== undefined || this.#queue.length === 0 || this.#running < this.#limits.maxInflight)
      return;
    const head = this.#queue[0] as { at: number };
    this.#waitTimer = setTimeout(
      () => this.#expire(),
      Math.max(0, head.at + this.#limits.queueWaitMs - Date.now()),
    );
  }

  // Backpressure: `writableNeedDrain` guarantees a 'drain' event will come to resume the connection.
  #outputBlocked(): boolean {
    return this.#socket.writableNeedDrain && this.#socket.writableLength > this.#limits.highWater;
  }

  #throttle(): void {
    const block = this.#outputBlocked() || this.#queuedBytes > MAX_QUEUED_BYTES;
    if (block && !this.#paused) {
      this.#paused = true;
      this.#socket.pause();
    } else if (!block && this.#paused) {
      this.#paused = false;
      this.#socket.resume();
    }
  }

  #write(answer: BrokerAnswer): void {
    if (!this.#socket.destroyed) this.#socket.write(answerLine(answer));
  }

  #progress(id: string, progress: RunProgress): void {
    if (!this.#socket.destroyed && !this.#outputBlocked())
      this.#socket.write(encodeLine({ protocol: BROKER_PROTOCOL, id, progress }));
  }
}
