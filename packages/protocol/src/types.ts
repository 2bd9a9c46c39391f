// The wire types of loom-broker/1 (docs/protocol.md).
import type { AnswerCode, EnvelopeErrorCode } from './codes';
import type { BrokerProtocol } from './version';

/** A confidentiality/integrity label as `@harness/ifc` reads it; the protocol carries it as data. */
export interface Label {
  confidentiality?: unknown[];
  integrity?: unknown[];
}

/** One command as `list` and `loom command list --json` show it (docs/protocol.md, "Manifest rows"). */
export interface ManifestRow {
  id: string;
  title: string;
  help: string;
  inputs: unknown;
  outputs?: string[];
  effect?: 'read' | 'write';
  scope?: string;
  readOnlyGranted?: boolean;
  ifc?: Label;
  /**
   * The timeout the host enforces on this command, in ms (a pack's `timeout`): a client waits for a
   * call's answer at least this long plus a margin. Absent: the host states none.
   */
  timeoutMs?: number;
  origin?: string;
  developer?: boolean;
  actors?: string[];
  origins_refused?: string[];
  origins_required?: string[];
  grant?: unknown;
}

/** The one JSON answer of `loom command run` and of a broker `run` request. */
export interface CommandAnswer {
  ok: boolean;
  id: string;
  code: AnswerCode;
  reason?: string;
  mayHaveLanded: boolean;
  completed: string[];
  body: unknown;
  ifc?: Label;
}

/** The fields every request line carries. */
interface Envelope {
  protocol: BrokerProtocol;
  id: string;
}

/** `hello`: who this broker is. */
export interface HelloRequest extends Envelope {
  op: 'hello';
}

/** What a `list` asks for, without its envelope. */
export interface ListParams {
  jobId?: string;
  /**
   * The `etag` of the listing the client holds (`""` when it holds none). A broker answers with the
   * listing's `etag`, and with `unchanged: true` and no rows when it equals this one.
   */
  ifNoneMatch?: string;
}

/** `list`: the rows this broker's scope admits. */
export interface ListRequest extends Envelope, ListParams {
  op: 'list';
}

/** What a `run` asks for, without its envelope. */
export interface RunParams {
  command: string;
  args: Record<string, unknown>;
  loomId?: string;
  expectedVersion?: number;
  readOnly?: boolean;
  jobId?: string;
  /**
   * Asks for {@link ProgressLine}s while the run is in flight: one every `PROGRESS_INTERVAL_MS`
   * after the first `PROGRESS_INTERVAL_MS`. A client that does not ask never receives one.
   */
  progress?: boolean;
}

/** `run`: run one command as the broker's agent. */
export interface RunRequest extends Envelope, RunParams {
  op: 'run';
}

/** What a `cancel` asks for, without its envelope. */
export interface CancelParams {
  /** The `id` of a `run` request sent earlier on the same connection. */
  target: string;
}

/**
 * `cancel`: stop a run in flight on this connection. The broker kills a running pack command's
 * process group; the run still gets its own answer (`failed`, reason `cancelled`), and its audit
 * row says `cancelled`. A built-in runs to its end.
 */
export interface CancelRequest extends Envelope, CancelParams {
  op: 'cancel';
}

/** Any request a broker accepts. */
export type BrokerRequest = HelloRequest | ListRequest | RunRequest | CancelRequest;

/** The result of a `cancel` request. */
export interface CancelResult {
  /**
   * `true` when a run of that id was in flight on this connection and has been told to stop (its
   * own answer follows); `false` when none was (already answered, never sent, or not a run).
   */
  cancelled: boolean;
}

/** How far a run in flight has come, as a {@link ProgressLine} carries it. */
export interface RunProgress {
  /** Ms since the broker began handling the run. */
  elapsedMs: number;
  /** Bytes of stdout + stderr the command has written so far (0 for a built-in, or before it starts). */
  outputBytes: number;
}

/**
 * A line the broker sends about a `run` that asked for `progress` and has not been answered yet:
 * the request's `id` and no `ok`, so it is never read as the answer.
 */
export interface ProgressLine extends Envelope {
  progress: RunProgress;
}

/** The result of a `hello` request. */
export interface HelloResult {
  protocol: BrokerProtocol;
  run: string;
  agent: string;
}

/** The result of a `list` request. */
export interface ListResult {
  commands: ManifestRow[];
  /** The listing's version, present when the request sent `ifNoneMatch`. */
  etag?: string;
  /** The listing equals the one the request's `ifNoneMatch` names; `commands` is then empty. */
  unchanged?: true;
}

/** An envelope-level error: the request itself could not be handled. */
export interface EnvelopeError {
  code: EnvelopeErrorCode;
  message: string;
}

/** One answer line of the broker. */
export type BrokerAnswer =
  | (Envelope & { ok: true; result: HelloResult | ListResult | CommandAnswer | CancelResult })
  | (Envelope & { ok: false; error: EnvelopeError });
