// The protocol's code lists: host answer codes and kinds, spawn statuses, envelope error codes, CLI exit
// codes, ref kinds.

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

/**
 * The kinds of a {@link CommandAnswer}, each naming what its `body` holds (docs/protocol.md,
 * "Answers"): `ran`, a pack command's process ran; `held`, the call waits for a person's approval
 * (or a person, or nobody in time, decided against it); `refused`, nothing ran; `cancelled`, its
 * caller cancelled it before its process started; `failed`, the host failed around it; `composed`,
 * `inspected`, `context`, `version_conflict`, `request_conflict` and `not_found`, the Loom
 * built-ins' answers; `result`, a command's own JSON (another host's command).
 */
export const ANSWER_KINDS = [
  'ran',
  'held',
  'refused',
  'cancelled',
  'failed',
  'composed',
  'inspected',
  'context',
  'version_conflict',
  'request_conflict',
  'not_found',
  'tool_result',
  'result',
] as const;

/** One answer kind. */
export type AnswerKind = (typeof ANSWER_KINDS)[number];

/**
 * The named failures an exit code of a pack command can mean, as its pack declares them
 * (`failure_exit_codes`, docs/packs.md): `tests_failed` (a test runner ran and a test failed),
 * `problems_found` (a linter, type checker or format check ran and reports problems),
 * `build_failed` (a compiler or builder ran and the code does not build). A closed list: a model
 * and a script branch on these words, so every pack spells a failure the same way.
 */
export const EXIT_FAILURES = ['tests_failed', 'problems_found', 'build_failed'] as const;

/** One named failure of an exit code. */
export type ExitFailure = (typeof EXIT_FAILURES)[number];

/** Each {@link ExitFailure} as a person reads it in a status line (`tests failed`). */
export const EXIT_FAILURE_WORDS: Readonly<Record<ExitFailure, string>> = {
  tests_failed: 'tests failed',
  problems_found: 'problems found',
  build_failed: 'build failed',
};

/** Whether a status or reason is one of the {@link EXIT_FAILURES}. */
export const isExitFailure = (value: unknown): value is ExitFailure =>
  (EXIT_FAILURES as readonly unknown[]).includes(value);

/**
 * How one spawn of a pack command ended, most specific first, as a `ran` answer's `body.status`
 * says it (docs/packs.md, "Running a command"): `ok`; one of the {@link EXIT_FAILURES} (an exit code
 * the command's pack names); `exit_nonzero` (any other exit code but the pack's ok codes);
 * `signaled`; `escaped`; `timed_out`; `output_exceeded`; `cancelled`; `parse_failed`.
 */
export const SPAWN_STATUSES = [
  'ok',
  ...EXIT_FAILURES,
  'exit_nonzero',
  'signaled',
  'escaped',
  'timed_out',
  'output_exceeded',
  'cancelled',
  'parse_failed',
] as const;

/** How one spawn ended. */
export type SpawnStatus = (typeof SPAWN_STATUSES)[number];

/**
 * The reasons of a `held` answer: the approval is still to be given (`approval_required`), a person
 * denied it (`approval_denied`), or nobody decided before it expired (`approval_expired`).
 */
export const HELD_REASONS = ['approval_required', 'approval_denied', 'approval_expired'] as const;

/** One reason a call was held. */
export type HeldReason = (typeof HELD_REASONS)[number];

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
