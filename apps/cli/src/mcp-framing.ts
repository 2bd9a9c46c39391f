// The bound on one MCP message `harness serve` reads, and the newline framing of MCP over stdio that
// keeps to it (docs/cli.md, "Message size"). It imports nothing of the MCP SDK, so serve's HTTP
// transport reads the same bound without loading the SDK's stdio code.

/**
 * Largest MCP message `harness serve` reads, in bytes: a stdio line without its newline, an HTTP
 * request body. 4 MiB, the MCP SDK's own bound on an HTTP body; a tool call's arguments reach the
 * host through its protocol, whose arguments bound (1 MiB) is far below it.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** A JSON-RPC request id, as MCP allows it (a string or an integer). */
export type RequestId = string | number;

/** One line taken from a {@link MessageLineReader}: its text, or the fact that it was too large. */
export type MessageLine =
  | { ok: true; text: string }
  | {
      ok: false;
      reason: 'too_large';
      /** Bytes of the whole line, newline excluded. */
      bytes: number;
      /** The id of the request it held, when its top-level object named one and a `method`. */
      id: RequestId | null;
    };

/** A JSON-RPC error object (the `error` member of an error response). */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** JSON-RPC's code for a request that is not a valid request object (here: one too large to read). */
export const INVALID_REQUEST = -32600;

/** JSON-RPC's code for a message that is not JSON. */
export const PARSE_ERROR = -32700;

/**
 * The error that answers a message over {@link MAX_MESSAGE_BYTES}: it names the bound and how to send
 * less. `bytes` is the message's size when known (a stdio line read to its end, a declared HTTP
 * length), else omitted (an HTTP body cut off as it streamed).
 */
export function messageTooLarge(bytes?: number): JsonRpcError {
  const found = bytes === undefined ? 'more than that' : `${bytes} bytes`;
  return {
    code: INVALID_REQUEST,
    message: `Invalid Request: an MCP message to harness serve may hold at most ${MAX_MESSAGE_BYTES} bytes (${MAX_MESSAGE_BYTES / 1024 / 1024} MiB), this one held ${found}; it was discarded unread. Send less in one message: split a run_command batch into several calls, and keep large content out of tool arguments.`,
    data: { maxBytes: MAX_MESSAGE_BYTES, ...(bytes === undefined ? {} : { bytes }) },
  };
}

const NEWLINE = 0x0a;

/**
 * Splits the bytes of a stream into lines, holding at most `maxBytes` of any one line. A line that
 * grows past the bound is discarded as it arrives, up to its newline, and taken as `too_large` with
 * its size and, where it can be read as the bytes pass, its request id; the next line is read as
 * usual. Multi-byte UTF-8 is decoded only once a line is whole, so a chunk may end anywhere.
 */
export class MessageLineReader {
  readonly maxBytes: number;
  #pieces: Buffer[] = [];
  #bytes = 0;
  // Set while the current line is over the bound: its bytes pass through it and are dropped.
  #scanner: RequestIdScanner | undefined;

  constructor(maxBytes: number = MAX_MESSAGE_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** Adds a chunk and returns the lines it completed, in order. */
  push(chunk: Buffer): MessageLine[] {
    const lines: MessageLine[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      this.#take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) break;
      lines.push(this.#finish());
      start = nl + 1;
    }
    return lines;
  }

  /** Bytes of the unfinished line held in memory (never more than `maxBytes`). */
  get held(): number {
    return this.#scanner === undefined ? this.#bytes : 0;
  }

  /** Forgets the unfinished line. */
  clear(): void {
    this.#pieces = [];
    this.#bytes = 0;
    this.#scanner = undefined;
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#bytes += piece.length;
    if (this.#scanner !== undefined) {
      this.#scanner.feed(piece);
      return;
    }
    if (this.#bytes <= this.maxBytes) {
      this.#pieces.push(piece);
      return;
    }
    const scanner = new RequestIdScanner();
    for (const held of this.#pieces) scanner.feed(held);
    scanner.feed(piece);
    this.#pieces = [];
    this.#scanner = scanner;
  }

  #finish(): MessageLine {
    const bytes = this.#bytes;
    const scanner = this.#scanner;
    const pieces = this.#pieces;
    this.clear();
    if (scanner !== undefined) return { ok: false, reason: 'too_large', bytes, id: scanner.requestId() };
    const whole = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, bytes);
    const text = whole.toString('utf8');
    return { ok: true, text: text.endsWith('\r') ? text.slice(0, -1) : text };
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]
const OPEN_OBJECT = 0x7b;
// An id longer than this, as JSON, is not echoed: the answer then carries id null.
const MAX_ID_BYTES = 256;
// Longer than any key looked for; a longer key is only counted past, never kept.
const MAX_KEY_CHARS = 8;

/**
 * Reads, from the bytes of one JSON text as they pass, the `id` of its top-level object when that
 * object also has a `method` key (so it is a request, not a response to one) and the id is a
 * string or an integer of at most {@link MAX_ID_BYTES} bytes. It holds a few hundred bytes whatever
 * the text's length. An SDK client writes `id` after `params`, so it is often the line's last key.
 * Bytes of UTF-8 above 0x7f never equal the structural characters, so the bytes need no decoding.
 */
class RequestIdScanner {
  #depth = 0;
  #done = false;
  #inString = false;
  #escaped = false;
  // Whether the next string at depth 1 is a key (else it is a value).
  #expectKey = false;
  #key: string | undefined;
  #lastKey = '';
  #value: number[] | undefined;
  #id: RequestId | null = null;
  #method = false;

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.#done; i++) {
      const b = bytes[i] as number;
      if (this.#inString) {
        this.#capture(b);
        if (this.#escaped) this.#escaped = false;
        else if (b === BACKSLASH) {
          this.#escaped = true;
          // A key spelled with an escape is never one looked for (JSON allows it; no client does).
          if (this.#key !== undefined) this.#key = '\\';
        } else if (b === QUOTE) {
          this.#inString = false;
          if (this.#key !== undefined) {
            this.#lastKey = this.#key;
            this.#key = undefined;
          }
        } else if (this.#key !== undefined && this.#key.length <= MAX_KEY_CHARS) {
          this.#key += String.fromCharCode(b);
        }
        continue;
      }
      this.#structural(b);
    }
  }

  // Keeps a byte of the id's value; one byte past the bound is enough to know it is too long.
  #capture(b: number): void {
    if (this.#value !== undefined && this.#value.length <= MAX_ID_BYTES) this.#value.push(b);
  }

  #structural(b: number): void {
    const top = this.#depth === 1;
    if (b === QUOTE) {
      this.#inString = true;
      this.#capture(b);
      if (top && this.#expectKey) this.#key = '';
    } else if (OPEN.has(b)) {
      // A top level that is not an object (a batch, a bare value) names no id.
      if (this.#depth === 0 && b !== OPEN_OBJECT) this.#done = true;
      this.#capture(b);
      this.#depth += 1;
      if (this.#depth === 1) this.#expectKey = true;
    } else if (CLOSE.has(b)) {
      if (top) this.#endValue();
      else this.#capture(b);
      this.#depth -= 1;
      if (this.#depth <= 0) this.#done = true;
    } else if (top && b === COLON) {
      this.#expectKey = false;
      if (this.#lastKey === 'method') this.#method = true;
      if (this.#lastKey === 'id') this.#value = [];
    } else if (top && b === COMMA) {
      this.#endValue();
      this.#expectKey = true;
    } else {
      this.#capture(b);
    }
  }

  #endValue(): void {
    const raw = this.#value;
    this.#value = undefined;
    if (raw === undefined) return;
    let id: unknown = null;
    try {
      if (raw.length <= MAX_ID_BYTES) id = JSON.parse(Buffer.from(raw).toString('utf8'));
    } catch {
      // Not JSON: no id can be read.
    }
    // A later `id` key wins, as it does for JSON.parse; one that is not a request id clears it.
    this.#id = typeof id === 'string' || Number.isInteger(id) ? (id as RequestId) : null;
  }

  /** The request's id, or null when the text is not a request or its id could not be read. */
  requestId(): RequestId | null {
    return this.#method ? this.#id : null;
  }
}
