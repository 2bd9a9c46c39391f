// One connection to an upstream server: the SDK client over its transport (a process harness
// spawned, or streamable HTTP), opened within the start bound, refusing every request the server
// makes of harness (sampling, elicitation, roots), and knowing whether it died or was closed.
//
// The client is the v2 SDK's (@modelcontextprotocol/client), negotiating the protocol version with
// each server: it asks `server/discover` first, and speaks 2026-07-28 to a server that answers it,
// else the 2025 `initialize` handshake, on the same connection. A server that ends the connection
// on that first question (some 2025 servers exit on any request before `initialize`) is started
// once more and spoken to in 2025 only.
import {
  Client,
  type JSONRPCMessage,
  type MessageExtraInfo,
  ProtocolError,
  ProtocolErrorCode,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { ListingRefused, readListing } from './listing';
import type { LogRing } from './logs';
import { spawnServer } from './spawn';
import { ProcessTransport, TransportFault } from './stdio-transport';
import type { CallProgress, ServerSpec, ServerState, UpstreamTool } from './types';

/** How harness names itself to an upstream server. */
const CLIENT_INFO = { name: 'harness', version: '0.1.0' };

/** The error message an upstream server gets for a request harness does not serve. */
export function refusal(method: string): string {
  return `harness does not forward sampling, elicitation or roots requests (nor any other request) from an upstream server; ${method} refused`;
}

/** What a session reports to its owner. */
export interface SessionEvents {
  /** The connection ended without {@link Session.close}: the process exited, the HTTP stream closed. */
  died(session: Session): void;
  /** The listing was re-read after notifications/tools/list_changed. */
  toolsChanged(session: Session): void;
}

/** One open connection and what is known of it. */
export class Session {
  readonly client: Client;
  readonly transport: ProcessTransport | StreamableHTTPClientTransport;
  readonly openedAt = Date.now();
  tools: readonly UpstreamTool[] = [];
  dead = false;
  /** The transport's fault (a non-JSON-RPC line, a message too large), if one came. */
  fault: TransportFault | undefined;
  private closing = false;
  /** Whether harness has sent `initialize` on this connection: a death before it came on the probe. */
  private sentInitialize = false;
  /** Progress listeners of the calls in flight, by the token harness sent with each. */
  private readonly progress = new Map<string, (p: CallProgress) => void>();
  private tokens = 0;
  /** During the start: fails it at once (a fault, the process gone) rather than at its bound. */
  private failStart: ((message: string) => void) | undefined;

  constructor(
    private readonly spec: ServerSpec,
    private readonly logs: LogRing,
    private readonly events: SessionEvents,
    /** `auto`: ask `server/discover` first; `legacy`: the 2025 handshake only. */
    private readonly negotiation: 'auto' | 'legacy' = 'auto',
  ) {
    const t = spec.transport;
    this.transport =
      t.kind === 'stdio'
        ? new ProcessTransport(spec.id, () => spawnServer(t), logs, messageBound(spec))
        : new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: { ...t.headers } } });
    const send = this.transport.send.bind(this.transport);
    this.transport.send = (message, options) => {
      if ('method' in message && message.method === 'initialize') this.sentInitialize = true;
      return send(message as never, options as never);
    };
    // Set before connect, so a fault during the version negotiation (which owns the transport
    // before the client does) fails the start too; the client's own onerror reports the rest.
    this.transport.onerror = (error) => {
      if (error instanceof TransportFault) this.onError(error);
    };
    // Set before connect: the SDK calls this first, then rejects the pending requests.
    this.transport.onclose = () => {
      this.dead = true;
      if (!this.closing) this.events.died(this);
    };
    this.client = new Client(CLIENT_INFO, {
      capabilities: {},
      versionNegotiation: {
        mode: this.negotiation,
        // A server that stays silent on the question is a 2025 one: it is not waited for long.
        probe: { timeoutMs: Math.max(1, Math.min(5_000, Math.floor(spec.startTimeoutMs / 3))) },
      },
    });
    // Declared none, asked anyway: the server is told why, at once, rather than left waiting.
    this.client.fallbackRequestHandler = async (request) => {
      this.logs.write(`[harness] refused ${request.method} from server ${spec.id}`);
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, refusal(request.method));
    };
    this.client.onerror = (error) => this.onError(error);
    this.client.setNotificationHandler('notifications/tools/list_changed', () => this.reread());
  }

  /**
   * True when the server's process ended on the version question, before harness sent `initialize`:
   * some 2025 servers exit on any request before it. Its owner then starts it for the 2025 handshake.
   */
  get diedOnProbe(): boolean {
    return this.negotiation === 'auto' && this.dead && !this.sentInitialize;
  }

  /** The protocol version the server and harness speak, once connected. */
  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion();
  }

  /** The process's pid while it runs (stdio). */
  get pid(): number | undefined {
    return this.transport instanceof ProcessTransport && !this.dead ? this.transport.pid : undefined;
  }

  get confinement(): ServerState['confinement'] | undefined {
    return this.transport instanceof ProcessTransport
      ? this.transport.confinement
      : { confined: false, reason: 'an HTTP server runs outside harness; harness does not confine it' };
  }

  /** What ended the connection, in words, with the last stderr lines (never a secret of the spec). */
  deathDescription(): string {
    const how = this.transport instanceof ProcessTransport ? this.transport.exitDescription() : undefined;
    const tail = this.logs.tail();
    return `${how ?? 'closed the connection'}${tail === '' ? '' : `; last stderr: ${tail}`}`;
  }

  private onError(error: Error): void {
    if (error instanceof TransportFault) {
      this.fault ??= error;
      this.failStart?.(error.message);
      return;
    }
    this.logs.write(`[harness] ${error.message}`);
  }

  private async reread(): Promise<void> {
    try {
      this.tools = await readListing(this.client, this.spec.id, listingBound(this.spec));
      this.events.toolsChanged(this);
    } catch (error) {
      this.logs.write(
        `[harness] re-reading the listing after tools/list_changed failed: ${(error as Error).message}`,
      );
    }
  }

  /**
   * Connects, initializes and reads the first listing within `spec.startTimeoutMs`. Rejects with a
   * message naming the server and what went wrong; the process is ended then.
   */
  async open(): Promise<void> {
    const { id, startTimeoutMs } = this.spec;
    const abort = new AbortController();
    let failure: string | undefined;
    this.failStart = (message) => {
      failure ??= message;
      abort.abort(new Error(message));
    };
    const timer = setTimeout(
      () =>
        this.failStart?.(
          `server ${id} did not answer initialize and tools/list within ${startTimeoutMs} ms (startTimeoutMs)`,
        ),
      Math.min(startTimeoutMs, 2 ** 31 - 1),
    );
    const options = { signal: abort.signal, timeout: Math.min(startTimeoutMs + 60_000, 2 ** 31 - 1) };
    try {
      await this.client.connect(this.transport as Transport, options);
      this.routeProgress();
      this.tools = await readListing(this.client, id, listingBound(this.spec), options);
    } catch (error) {
      await this.close();
      if (failure !== undefined) throw new Error(failure);
      if (error instanceof ListingRefused) throw error;
      if (this.dead && this.transport instanceof ProcessTransport && this.transport.exitDescription()) {
        throw new Error(`server ${id} ${this.deathDescription()} before it was ready`);
      }
      throw new Error(`server ${id} failed to start: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
      this.failStart = undefined;
    }
  }

  /**
   * Listens to the progress of one call: answers the token to send in its `_meta.progressToken`,
   * and `stop` to drop the listener once the call is over.
   */
  watchProgress(listener: (p: CallProgress) => void): { readonly token: string; stop(): void } {
    const token = `harness-${++this.tokens}`;
    this.progress.set(token, listener);
    return { token, stop: () => this.progress.delete(token) };
  }

  /**
   * Hands progress notifications to their call's listener as each message is read. The SDK runs
   * notification handlers a microtask later than responses, so its own routing loses a last
   * progress that arrives right before the result; here the order on the wire is kept.
   */
  private routeProgress(): void {
    const inner = this.transport.onmessage;
    const route = (message: JSONRPCMessage, extra?: MessageExtraInfo): void => {
      if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
        const params = (message.params ?? {}) as Record<string, unknown>;
        const token = String(params.progressToken);
        if (token.startsWith('harness-')) {
          // A late one, for a call already over, is dropped.
          if (typeof params.progress === 'number') this.progress.get(token)?.(progressOf(params));
          return;
        }
      }
      inner?.(message, extra);
    };
    this.transport.onmessage = route as NonNullable<Transport['onmessage']>;
  }

  /** Closes the connection; a stdio server's process group ends. */
  async close(): Promise<void> {
    this.closing = true;
    await this.client.close().catch(() => {});
    // A client never connected (spawn failed) has no transport to close through it.
    await this.transport.close().catch(() => {});
  }
}

function progressOf(params: Record<string, unknown>): CallProgress {
  return {
    progress: params.progress as number,
    ...(typeof params.total === 'number' ? { total: params.total } : {}),
    ...(typeof params.message === 'string' ? { message: params.message } : {}),
  };
}

/** The listing bound of a spec: 4 MiB unless it says. */
export function listingBound(spec: ServerSpec): number {
  return spec.maxListingBytes ?? 4 * 1024 * 1024;
}

/** The largest single stdio message: at least 16 MiB, and room for the largest allowed listing. */
function messageBound(spec: ServerSpec): number {
  return Math.max(16 * 1024 * 1024, listingBound(spec) * 2 + 64 * 1024);
}
