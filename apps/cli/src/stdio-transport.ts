// MCP over stdio for `harness serve`, with every line bounded (docs/cli.md, "Message size").
//
// It stands in for the SDK's StdioServerTransport, whose read buffer, once it passes its own bound
// (10 MiB), throws: the transport then closes itself and pauses stdin, without a word to the
// client, and serve, waiting for stdin to end, stayed alive and silent for good. Here a line over
// the bound is dropped as it arrives and answered; a line that is not JSON or not JSON-RPC is
// answered too, where the SDK's only went to `onerror`.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  INVALID_REQUEST,
  type JsonRpcError,
  MAX_MESSAGE_BYTES,
  type MessageLine,
  MessageLineReader,
  messageTooLarge,
  PARSE_ERROR,
  type RequestId,
} from './mcp-framing';

/** An MCP server transport on a pair of streams (stdin and stdout by default), one message a line. */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #reader: MessageLineReader;
  #started = false;

  constructor(
    stdin: Readable = process.stdin,
    stdout: Writable = process.stdout,
    maxMessageBytes: number = MAX_MESSAGE_BYTES,
  ) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#reader = new MessageLineReader(maxMessageBytes);
  }

  readonly #ondata = (chunk: Buffer): void => {
    for (const line of this.#reader.push(chunk)) this.#receive(line);
  };

  readonly #onerror = (error: Error): void => {
    this.onerror?.(error);
  };

  async start(): Promise<void> {
    if (this.#started) throw new Error('BoundedStdioServerTransport already started');
    this.#started = true;
    this.#stdin.on('data', this.#ondata);
    this.#stdin.on('error', this.#onerror);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  async close(): Promise<void> {
    this.#stdin.off('data', this.#ondata);
    this.#stdin.off('error', this.#onerror);
    // Pausing a stdin something else still reads would starve that reader.
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#reader.clear();
    this.onclose?.();
  }

  #receive(line: MessageLine): void {
    if (!line.ok) {
      this.#answerError(line.id, messageTooLarge(line.bytes));
      return;
    }
    // A blank line (a keep-alive, a stray CRLF) carries nothing to answer.
    if (line.text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (error) {
      this.#answerError(null, {
        code: PARSE_ERROR,
        message: `Parse error: the line is not JSON (${(error as Error).message}); send one JSON-RPC message per line`,
      });
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(value);
    if (message.success) {
      // A handler that throws must not take the stdin listener (and serve) down with it.
      try {
        this.onmessage?.(message.data);
      } catch (error) {
        this.onerror?.(error as Error);
      }
      return;
    }
    // A response is never answered, lest two peers answer each other's errors for ever.
    if (isObject(value) && !('method' in value) && ('result' in value || 'error' in value)) {
      this.onerror?.(new Error(`an invalid JSON-RPC response was dropped: ${message.error.message}`));
      return;
    }
    this.#answerError(requestIdOf(value), {
      code: INVALID_REQUEST,
      message: 'Invalid Request: the line is JSON but not a JSON-RPC 2.0 request or notification',
    });
  }

  #answerError(id: RequestId | null, error: JsonRpcError): void {
    void this.#write({ jsonrpc: '2.0', id, error });
  }

  #write(value: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stdout.write(`${JSON.stringify(value)}\n`)) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The id of an invalid request, where it is one MCP allows; else null, as JSON-RPC says. */
function requestIdOf(value: unknown): RequestId | null {
  if (!isObject(value) || !('method' in value)) return null;
  const id = value.id;
  return typeof id === 'string' || Number.isInteger(id) ? (id as RequestId) : null;
}

/**
 * A started transport whose first message is read before anyone serves it, so serve can tell a
 * 2025 client (its `initialize`) from a 2026-07-28 one; `handoff()` is then a transport for the
 * server that answers, delivering that first message (and any that came with it) on its start.
 */
export class FirstMessage {
  readonly #inner: Transport;
  readonly #queued: JSONRPCMessage[] = [];
  #first: Promise<JSONRPCMessage | undefined> | undefined;

  constructor(inner: Transport) {
    this.#inner = inner;
  }

  /** The first message, once it arrives; undefined when the transport closes before any. */
  first(): Promise<JSONRPCMessage | undefined> {
    this.#first ??= new Promise((resolve, reject) => {
      this.#inner.onmessage = (message: JSONRPCMessage) => {
        this.#queued.push(message);
        resolve(this.#queued[0]);
      };
      this.#inner.onclose = () => resolve(undefined);
      this.#inner.start().catch(reject);
    });
    return this.#first;
  }

  /** A transport over the same streams that replays what was read so far once it is started. */
  handoff(): Transport {
    const inner = this.#inner;
    const queued = this.#queued;
    const handoff: Transport = {
      async start() {
        inner.onmessage = (message: JSONRPCMessage) => handoff.onmessage?.(message);
        inner.onclose = () => handoff.onclose?.();
        inner.onerror = (error: Error) => handoff.onerror?.(error);
        const early = queued.splice(0);
        queueMicrotask(() => {
          for (const message of early) handoff.onmessage?.(message);
        });
      },
      send: (message, options) => inner.send(message, options),
      close: () => inner.close(),
    };
    return handoff;
  }
}
