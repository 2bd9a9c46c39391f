// What a host client is and what its calls come to, whichever transport carries them.
import type { ReceivedAnswer, RunProgress } from '@harness/protocol';

/**
 * What a host listing read came to. A failed read holds nothing. `etag` names the listing's version
 * where the host gives one; `unchanged` says the listing is the one `ifNoneMatch` named.
 */
export type ListOutcome =
  | { ok: true; listing: unknown; etag?: string | undefined }
  | { ok: true; unchanged: true; etag: string }
  | { ok: false; code: 'command_failed' | 'malformed_payload' | 'cancelled' };

/**
 * One call as the model wrote it and the harness sends it: the command, its arguments, the loom it
 * acts on and the version it expects (the protocol's `run` fields a model chooses). How it is
 * routed and enforced (job id, read-only, session) is the caller's, in {@link CallOptions}.
 */
export interface CallRequest {
  command: string;
  args: Record<string, unknown>;
  loomId?: string | undefined;
  expectedVersion?: number | undefined;
}

/**
 * Why a call got no answer:
 * - `not_sent`: nothing reached the host (`landed: "no"`); `busy` when the client already holds
 *   its bound of calls in flight (`MAX_PENDING_REQUESTS` of `@harness/protocol`);
 * - `lost`: the request was sent and no answer could be read (`landed: "unknown"`).
 */
export type SendFailure =
  | { kind: 'not_sent'; code: 'command_failed' | 'invalid_input' | 'cancelled' | 'busy' }
  | { kind: 'lost' };

/**
 * What sending a call came to: the command layer's (or broker's) answer as the protocol's reader
 * read it, handed on as it is (`parseAnswer`: any code a host sends kept, what an answer leaves out
 * filled in conservatively, the body checked against its kind; `ifc`, present when the answer
 * carries a label of its own, stays raw until `@harness/ifc` `readLabel` reads it), or a
 * {@link SendFailure}, told apart from every answer by its `kind`.
 */
export type SendOutcome = ReceivedAnswer | SendFailure;

/** Per-invocation routing an embedder supplies, and the enforcement a tool asks for (never the model). */
export interface CallOptions {
  /** The host job id for this invocation; omitted from the request when absent. */
  jobId?: string | undefined;
  /** Asks the host to enforce read-only execution (`--read-only`; set by the tool, never by the model). */
  readOnly?: boolean | undefined;
  /** The client session the call belongs to (the protocol's `session`; the socket client only). */
  session?: string | undefined;
  /** Checked before sending; a call already sent settles regardless (it is never rolled back). */
  signal?: AbortSignal | undefined;
  /**
   * Aborting it once the call was sent asks the host to stop it: the socket client sends the
   * protocol's `cancel` (the broker kills a running pack command's process group, and the call
   * settles with its `cancelled` answer). The CLI client cannot: the call runs on. Aborted before
   * sending, nothing is sent.
   */
  stop?: AbortSignal | undefined;
  /**
   * The command's own timeout from its listing row, when the row names one: the client waits that
   * long plus a margin (never less than its configured wait; see `callWaitMs`).
   */
  commandTimeoutMs?: number | undefined;
  /** Told the host's progress reports while the call runs (the socket client only). */
  onProgress?: ((progress: RunProgress) => void) | undefined;
}

/** A client of one Loom host. Both clients give the same outcomes for the same host behaviour. */
export interface HostClient {
  /** `cli` runs the host CLI per call; `socket` speaks the broker's socket protocol. */
  readonly kind: 'cli' | 'socket';
  /**
   * Reads the host's command listing. `ifNoneMatch` is the etag of the listing the caller holds
   * (`""` for none); a host that knows etags answers `unchanged` when it still stands.
   */
  list(options?: CallOptions & { ifNoneMatch?: string | undefined }): Promise<ListOutcome>;
  /** Sends one command call. */
  run(request: CallRequest, options?: CallOptions): Promise<SendOutcome>;
  /** Releases a held connection; safe to call twice. */
  close(): Promise<void>;
}
