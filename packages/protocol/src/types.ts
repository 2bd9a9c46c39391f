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
}

/** `run`: run one command as the broker's agent. */
export interface RunRequest extends Envelope, RunParams {
  op: 'run';
}

/** Any request a broker accepts. */
export type BrokerRequest = HelloRequest | ListRequest | RunRequest;

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
  | (Envelope & { ok: true; result: HelloResult | ListResult | CommandAnswer })
  | (Envelope & { ok: false; error: EnvelopeError });
