// What a host client is and what its calls come to, whichever transport carries them.
/** A label as the host writes it; `@harness/ifc` reads it (`readLabel`). */
export type RawLabel = unknown;

/** One answer of the host's command layer (docs/protocol.md, "Answers"). */
export interface CommandAnswer {
  ok: boolean;
  id: string;
  code: string;
  reason?: string;
  mayHaveLanded: boolean;
  completed: string[];
  body: unknown;
  /** Present when the answer carries a label of its own (read with `@harness/ifc` `readLabel`). */
  ifc?: RawLabel;
  /** True when the answer carried an `ifc` field at all, readable or not. */
  hasLabel: boolean;
}

/** What a host listing read came to. A failed read holds nothing. */
export type ListOutcome =
  | { ok: true; listing: unknown }
  | { ok: false; code: 'command_failed' | 'malformed_payload' | 'cancelled' };

/** One command call as the harness sends it. `readOnly` is set by the tool, never by the model. */
export interface RunRequest {
  command: string;
  args: Record<string, unknown>;
  loomId?: string;
  expectedVersion?: number;
  readOnly?: boolean;
}

/**
 * What sending a call came to:
 * - `answer`: the command layer (or broker) answered;
 * - `not_sent`: nothing reached the host (`landed: "no"`);
 * - `lost`: the request was sent and no answer could be read (`landed: "unknown"`).
 */
export type RunOutcome =
  | { kind: 'answer'; answer: CommandAnswer }
  | { kind: 'not_sent'; code: 'command_failed' | 'invalid_input' | 'cancelled' }
  | { kind: 'lost' };

/** Per-invocation routing an embedder supplies (never the model). */
export interface CallOptions {
  /** The host job id for this invocation; omitted from the request when absent. */
  jobId?: string | undefined;
  /** Checked before sending; a call already sent settles regardless (it is never rolled back). */
  signal?: AbortSignal | undefined;
}

/** A client of one Loom host. Both clients give the same outcomes for the same host behaviour. */
export interface HostClient {
  /** `cli` runs the host CLI per call; `socket` speaks the broker's socket protocol. */
  readonly kind: 'cli' | 'socket';
  /** Reads the host's command listing. */
  list(options?: CallOptions): Promise<ListOutcome>;
  /** Sends one command call. */
  run(request: RunRequest, options?: CallOptions): Promise<RunOutcome>;
  /** Releases a held connection; safe to call twice. */
  close(): Promise<void>;
}
