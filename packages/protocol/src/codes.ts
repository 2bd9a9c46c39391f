// The protocol's code lists: host answer codes, envelope error codes, CLI exit codes, ref kinds.

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

/** Envelope-level error codes: the request itself could not be handled. */
export const ENVELOPE_ERROR_CODES = [
  'bad_request',
  'unsupported_protocol',
  'request_too_large',
  'answer_too_large',
  'forbidden',
  'busy',
  'internal',
] as const;

/** One envelope-level error code. */
export type EnvelopeErrorCode = (typeof ENVELOPE_ERROR_CODES)[number];

/** Exit codes of `loom command run` / `loom command list` (docs/protocol.md, "Answers"). */
export const EXIT = {
  ok: 0,
  answerNotOk: 1,
  usage: 2,
  unreachable: 3,
  internal: 4,
} as const;

/**
 * The reference kinds a `loom.compose` component may carry, written `<kind>:<rest>` (seed 001,
 * "Tools and authority"). A pattern is named by `pattern_token`, never by a ref.
 */
export const REF_KINDS = [
  'page',
  'artifact',
  'url',
  'person',
  'thread',
  'moment',
  'loom',
  'wish',
  'intention',
  'chat',
  'run',
] as const;

/** One reference kind. */
export type RefKind = (typeof REF_KINDS)[number];
