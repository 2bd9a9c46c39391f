// The public shapes of @harness/servers: what a caller resolves for one upstream MCP server (its
// transport, confinement and bounds), and what the client answers (listings, call outcomes, state).
import type { Confinement, SandboxPolicy } from '@harness/exec';

/** A server harness starts itself and talks to over its stdin and stdout. */
export interface StdioTransportSpec {
  readonly kind: 'stdio';
  /** The program and its arguments: an argv, never a shell line. */
  readonly command: readonly string[];
  /** The whole environment the server gets (a cleared environment plus its own); the caller builds it. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** `null`: the server runs unconfined. */
  readonly sandbox: SandboxPolicy | null;
}

/** A server that runs elsewhere, reached over streamable HTTP. */
export interface HttpTransportSpec {
  readonly kind: 'http';
  readonly url: string;
  /** Sent with every request; never echoed into a message or a log. */
  readonly headers: Readonly<Record<string, string>>;
}

/** One upstream server, resolved: nothing here knows of workspaces, grants or tiers. */
export interface ServerSpec {
  readonly id: string;
  readonly transport: StdioTransportSpec | HttpTransportSpec;
  /** Bounds `initialize` and the first `tools/list` together. */
  readonly startTimeoutMs: number;
  /** Largest listing (all pages, as JSON) taken from the server; default 4 MiB. */
  readonly maxListingBytes?: number;
  /** How much of the server's stderr {@link ServerClient.logs} keeps; default 64 KiB. */
  readonly logBytes?: number;
}

/** One tool as the upstream server lists it. */
export interface UpstreamTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations?: Record<string, unknown>;
}

/** A listing, or why there is none (naming the server, never a secret). */
export type ListingOutcome =
  | { readonly ok: true; readonly tools: readonly UpstreamTool[] }
  | { readonly ok: false; readonly message: string };

/** What one `tools/call` came to. */
export type CallOutcome =
  | {
      readonly status: 'ok' | 'tool_error';
      /** Text contents joined with "\n"; other kinds summarised (`[image image/png, 12345 bytes]`). */
      readonly text: string;
      readonly structured?: unknown;
      /** The text (or the structured content) was over `maxOutputBytes`: cut, or left out. */
      readonly outputExceeded: boolean;
      readonly durationMs: number;
    }
  | {
      readonly status: 'timeout' | 'cancelled' | 'died' | 'failed' | 'too_large';
      readonly message: string;
      /** Whether the tool may have run upstream all the same. */
      readonly mayHaveLanded: boolean | 'unknown';
      readonly durationMs: number;
    };

/** Where a client is, for a status display. */
export interface ServerState {
  readonly id: string;
  readonly state: 'idle' | 'starting' | 'ready' | 'failed' | 'closed';
  readonly error?: string;
  readonly confinement: Confinement | { readonly confined: false; readonly reason: string };
  /** Starts after the first. */
  readonly restarts: number;
  readonly pid?: number;
  readonly toolCount?: number;
  /** The protocol version harness and the server speak while it is ready (`2026-07-28`, `2025-11-25` …). */
  readonly protocolVersion?: string;
}

/** Progress an upstream server reported for a call. */
export interface CallProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** The bounds and hooks of one call. */
export interface CallOptions {
  /** Past it the request is cancelled upstream and the outcome is `timeout`. */
  readonly timeoutMs: number;
  /** The text is cut to this many UTF-8 bytes. */
  readonly maxOutputBytes: number;
  /** The caller's cancel: the request is cancelled upstream and the outcome is `cancelled`. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: CallProgress) => void;
}

/** One MCP client for one upstream server, owned by the broker. */
export interface ServerClient {
  readonly id: string;
  /** Starts the server on first need (idempotent while starting), answers its current listing. */
  tools(): Promise<ListingOutcome>;
  /**
   * One `tools/call`. Past `timeoutMs` the request is cancelled upstream (notifications/cancelled)
   * and the outcome is `timeout`, mayHaveLanded 'unknown'; the caller's `signal` gives `cancelled`
   * the same way. A server that dies mid-call gives `died`, mayHaveLanded 'unknown'.
   */
  call(name: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallOutcome>;
  state(): ServerState;
  /** The server's stderr, its last `logBytes` bytes (stdio); HTTP: the connection's errors. */
  logs(): string;
  /** Grows with every write to {@link logs}: equal to a value read before, the logs are unchanged. */
  logVersion(): number;
  /** Called after notifications/tools/list_changed was received and the listing re-read. */
  onToolsChanged(listener: () => void): () => void;
  /** Closes the client; a stdio server's whole process tree ends. */
  close(): Promise<void>;
}
