// The wire types of the host protocol (docs/protocol.md, docs/host.md). This module imports nothing,
// so the light client (`@harness/host/client`) and the `loom` CLI's fast path stay cheap to load.

/** The broker protocol's version tag; every request and answer carries it. */
export const BROKER_PROTOCOL = 'loom-broker/1';

/** Largest request or answer line the broker reads or writes, in bytes (newline excluded). */
export const MAX_LINE_BYTES = 1024 * 1024;

/**
 * Largest argument object a call may carry, in bytes of its compact JSON. Smaller than the line
 * limit so that a request holding the largest arguments still fits in one line with its envelope.
 */
export const MAX_ARGS_BYTES = MAX_LINE_BYTES - 8 * 1024;

/** A confidentiality/integrity label as `@harness/ifc` reads it; the host passes it through as data. */
export interface Label {
  confidentiality?: unknown[];
  integrity?: unknown[];
}

/** One command as `loom command list --json` shows it (docs/protocol.md, "Manifest rows"). */
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

/** Host codes a {@link CommandAnswer} carries (docs/protocol.md, "Answers"). */
export const ANSWER_CODES = [
  'ok',
  'forbidden',
  'refused',
  'bad-args',
  'unknown_command',
  'not_found',
  'version_conflict',
  'request_conflict',
  'failed',
  'internal',
] as const;

/** One host code. */
export type AnswerCode = (typeof ANSWER_CODES)[number];

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

/** Envelope-level error codes: the request itself could not be handled. */
export const ENVELOPE_ERROR_CODES = [
  'bad_request',
  'unsupported_protocol',
  'request_too_large',
  'forbidden',
  'internal',
] as const;

/** One envelope-level error code. */
export type EnvelopeErrorCode = (typeof ENVELOPE_ERROR_CODES)[number];

/** `hello`: who this broker is. */
export interface HelloRequest {
  protocol: typeof BROKER_PROTOCOL;
  id: string;
  op: 'hello';
}

/** `list`: the rows this broker's scope admits. */
export interface ListRequest {
  protocol: typeof BROKER_PROTOCOL;
  id: string;
  op: 'list';
  jobId?: string;
}

/** `run`: run one command as the broker's agent. */
export interface RunRequest {
  protocol: typeof BROKER_PROTOCOL;
  id: string;
  op: 'run';
  command: string;
  args: Record<string, unknown>;
  loomId?: string;
  expectedVersion?: number;
  readOnly?: boolean;
  jobId?: string;
}

/** Any request a broker accepts. */
export type BrokerRequest = HelloRequest | ListRequest | RunRequest;

/** The result of a `hello` request. */
export interface HelloResult {
  protocol: typeof BROKER_PROTOCOL;
  run: string;
  agent: string;
}

/** The result of a `list` request. */
export interface ListResult {
  commands: ManifestRow[];
}

/** One answer line of the broker. */
export type BrokerAnswer =
  | {
      protocol: typeof BROKER_PROTOCOL;
      id: string;
      ok: true;
      result: HelloResult | ListResult | CommandAnswer;
    }
  | {
      protocol: typeof BROKER_PROTOCOL;
      id: string;
      ok: false;
      error: { code: EnvelopeErrorCode; message: string };
    };

/** Exit codes of `loom command run` / `loom command list` (docs/protocol.md). */
export const EXIT = {
  ok: 0,
  answerNotOk: 1,
  usage: 2,
  unreachable: 3,
  internal: 4,
} as const;
