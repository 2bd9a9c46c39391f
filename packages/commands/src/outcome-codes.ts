// Every status and code a tool result carries, spelled once. The schemas in outcome.ts and every
// builder and reader of a result use these tables, never the string itself.
import { defineCodes } from '@harness/errors';
import type { AnswerCode } from '@harness/protocol';

/** The `status` of a tool result: what a model reads first, and what a reader switches on. */
export const OutcomeStatus = defineCodes({
  /** A listing, or a Loom tool's receipt or view. */
  ok: 'ok',
  /** One call the command layer answered (`outcome`, `entry`). */
  executed: 'executed',
  /** A batch of calls: one result per call, in order. */
  batch: 'batch',
  /** A call naming a command the run's catalog does not show; nothing was sent. */
  unknown_command: 'unknown_command',
  /** A call that reached no host (`landed: "no"`), or whose answer was lost (`landed: "unknown"`). */
  failed_to_deliver: 'failed_to_deliver',
  /** A `run_read_command` call whose command is not a granted read; nothing was sent. */
  not_granted: 'not_granted',
  /** A Loom tool call the harness or the host would not do. */
  refused: 'refused',
  /** A Loom tool call that failed; its guidance says whether repeating it is safe. */
  failed: 'failed',
  /** A Loom composition that may have been committed. */
  uncertain: 'uncertain',
  /** A Loom tool call the turn cancelled before the host was called. */
  cancelled: 'cancelled',
});

/** Why a call failed to deliver: every code but `answer_lost` means nothing was sent. */
export const DeliveryCode = defineCodes({
  /** The tool was kept without a host configuration (`alwaysRegister`). */
  not_configured: 'not_configured',
  /** The input was malformed or oversized (the host's refusal before running included). */
  invalid_input: 'invalid_input',
  /** A batch of more calls than `LIMITS.maxBatchCalls`. */
  batch_too_large: 'batch_too_large',
  /** The turn was cancelled before the call was sent. */
  cancelled: 'cancelled',
  /** The listing could not be read, or the host could not be reached. */
  command_failed: 'command_failed',
  /** The socket client's bound of calls in flight was reached. */
  busy: 'busy',
  /** The host answered the listing with something that is not a listing. */
  malformed_payload: 'malformed_payload',
  /** The run's policy does not let this task call the tool. */
  not_authorized: 'not_authorized',
  /** An embedder's host did not start (`harness serve` starts its own after its tools exist). */
  host_unavailable: 'host_unavailable',
  /** The function-calling adapter was asked for a tool it does not have. */
  unknown_tool: 'unknown_tool',
  /** The call was sent and no answer could be read: it may have taken effect (`landed: "unknown"`). */
  answer_lost: 'answer_lost',
});

/** The three refusals an executed call's outcome reads as (seed 000 "run_command"). */
export const RefusalCode = defineCodes({
  /** A person must approve this exact call; the identical call then runs once. */
  approval_required: 'approval_required',
  /** The host refused an argument value before running anything. */
  render_refused: 'render_refused',
  /** The host did not grant the command to this run. */
  not_granted: 'not_granted',
});

/** The host answer codes a refusal keeps as `hostCode`. */
export const HOST_REFUSALS = ['forbidden', 'refused'] as const satisfies readonly AnswerCode[];

/** Why `run_read_command` sent nothing for a listed command (`not_granted`'s `reasonCode`). */
export const ReadRefusal = defineCodes({
  /** The command's effect is not `read`. */
  effect_not_read: 'effect_not_read',
  /** The broker did not stamp the command `readOnlyGranted: true`. */
  read_only_not_granted: 'read_only_not_granted',
});

/** The codes of a Loom tool's `failed` result. */
export const LoomFailureCode = defineCodes({
  /** The host's answer could not be read. */
  answer_lost: 'answer_lost',
  /** The host answered with something unreadable. */
  malformed_payload: 'malformed_payload',
  /** The host could not complete the call; its own text never reaches the model. */
  host_error: 'host_error',
  /** The tool was kept without an authoring configuration; nothing was sent. */
  not_configured: 'not_configured',
  /** The host connection carries its limit of calls in flight; nothing was sent. */
  host_busy: 'host_busy',
  /** The host could not be reached; nothing was sent. */
  host_unavailable: 'host_unavailable',
});

/** The harness's own codes of a Loom tool's `refused` result (beside pattern and host refusals). */
export const LoomRefusalCode = defineCodes({
  /** The input does not fit the tool. */
  invalid_input: 'invalid_input',
  /** The run's policy does not let this task call the tool. */
  not_authorized: 'not_authorized',
});

/** The host codes a Loom tool relays as `refused`, each with fixed guidance (loom-failures.ts). */
export const LOOM_HOST_REFUSALS = [
  'version_conflict',
  'request_conflict',
  'not_found',
  'forbidden',
  'refused',
  'bad-args',
  'unknown_command',
] as const satisfies readonly AnswerCode[];

/** Why a pattern token was refused, before any host write (`refused`'s `code`). */
export const PatternRefusalCode = defineCodes({
  pattern_token_unknown: 'pattern_token_unknown',
  pattern_token_restricted: 'pattern_token_restricted',
  pattern_token_subpath: 'pattern_token_subpath',
  pattern_token_foreign_space: 'pattern_token_foreign_space',
  pattern_token_not_space_scope: 'pattern_token_not_space_scope',
  pattern_token_not_instance: 'pattern_token_not_instance',
  pattern_resolver_missing: 'pattern_resolver_missing',
});

/** The `status` of an executed call's `entry`: its answer admitted under the ceiling, or withheld. */
export const EntryStatus = defineCodes({ admitted: 'admitted', withheld: 'withheld' });

/** What `landed` says: nothing reached the host, or it may have. */
export const Landed = { no: 'no', unknown: 'unknown' } as const;

/** The `kind` of a `loom_compose` success. */
export const LOOM_AUTHORED = 'loom-authored';
