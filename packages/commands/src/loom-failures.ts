// The results a Loom tool returns when it has no receipt or view to show: refusals with fixed
// guidance, and calls that were not sent, were lost, or failed. Raw host text never appears in them.
import type { CodeOf } from '@harness/errors';
import type { ReceivedAnswer } from '@harness/protocol';
import type { SendFailure } from './host/types';
import type { CancelledOutcome, FailedOutcome, RefusedOutcome, UncertainOutcome } from './outcome';
import {
  DeliveryCode,
  Landed,
  LOOM_HOST_REFUSALS,
  LoomFailureCode,
  type LoomRefusalCode,
  OutcomeStatus,
  type PatternRefusalCode,
} from './outcome-codes';
import type { RunState } from './run';

/** A host code a Loom tool relays as `refused`. */
type RelayedRefusal = (typeof LOOM_HOST_REFUSALS)[number];

/** Host refusal codes relayed to the model, each with fixed, bounded recovery guidance. */
export const ALLOWLISTED_REFUSALS: Readonly<Record<RelayedRefusal, string>> = {
  version_conflict:
    'The loom changed since you read it. Inspect it with loom_inspect and reconsider before composing again.',
  request_conflict:
    'This request_id already names a different committed composition. Recover its receipt with loom_authoring_context before deciding whether any new work is needed.',
  not_found: 'No loom has that id. Check the id; loom_authoring_context lists the looms this run composed.',
  forbidden: 'The host did not grant this to the run. Do not retry; tell the person it needs their grant.',
  refused: 'The host refused this. Do not retry; tell the person what you tried.',
  'bad-args': 'The host rejected the arguments. Check them against the tool description and call again.',
  unknown_command: 'This host does not offer Loom authoring. Tell the person the host needs a newer Loom.',
};

const UNCERTAIN_GUIDANCE =
  'The outcome is uncertain: the composition may have been committed. Retry the identical request with the same request_id and the same arguments to recover its receipt.';
const HOST_ERROR_GUIDANCE =
  'The host could not complete this. Nothing is known to have changed; try again later.';

/** A refusal (`status: "refused"`): the harness or the host would not do it. */
export function refused(
  run: RunState,
  code: CodeOf<typeof LoomRefusalCode> | CodeOf<typeof PatternRefusalCode> | RelayedRefusal,
  guidance: string,
  extra: Pick<RefusedOutcome, 'reasonCode'> = {},
): RefusedOutcome {
  return { outputId: run.mintOutputId(), status: OutcomeStatus.refused, code, guidance, ...extra };
}

/** A call whose outcome nobody knows: a composition may have been committed. */
export function uncertain(run: RunState): UncertainOutcome {
  return { outputId: run.mintOutputId(), status: OutcomeStatus.uncertain, guidance: UNCERTAIN_GUIDANCE };
}

/** A failed call (`status: "failed"`) whose guidance says whether repeating it is safe. */
export function failed(run: RunState, code: CodeOf<typeof LoomFailureCode>, guidance: string): FailedOutcome {
  return { outputId: run.mintOutputId(), status: OutcomeStatus.failed, code, guidance };
}

/** The result of a tool built without an authoring configuration (`alwaysRegister`). */
export function notConfigured(run: RunState): FailedOutcome {
  return failedNotSent(run, LoomFailureCode.not_configured, 'Loom authoring is not configured for this run.');
}

/** A call that never reached the host: cancelled by the turn, or the host could not be reached. */
export function notSent(
  run: RunState,
  code: Extract<SendFailure, { kind: 'not_sent' }>['code'],
): CancelledOutcome | FailedOutcome {
  if (code === DeliveryCode.cancelled)
    return {
      outputId: run.mintOutputId(),
      status: OutcomeStatus.cancelled,
      landed: Landed.no,
      guidance: 'The turn was cancelled before the host was called; nothing was written.',
    };
  if (code === DeliveryCode.busy)
    return failedNotSent(
      run,
      LoomFailureCode.host_busy,
      'The host connection already carries its limit of calls in flight; nothing was written. Retry once earlier calls have answered.',
    );
  return failedNotSent(run, LoomFailureCode.host_unavailable, HOST_ERROR_GUIDANCE);
}

/**
 * The result for a host answer with `ok: false`: an allowlisted code keeps its fixed guidance;
 * anything else is a raw host error whose text never reaches the model.
 */
export function refusalOf(
  run: RunState,
  answer: ReceivedAnswer,
): RefusedOutcome | UncertainOutcome | FailedOutcome {
  const relayed = LOOM_HOST_REFUSALS.find((c) => c === answer.code);
  if (relayed !== undefined) return refused(run, relayed, ALLOWLISTED_REFUSALS[relayed]);
  if (answer.mayHaveLanded) return uncertain(run);
  return failed(run, LoomFailureCode.host_error, HOST_ERROR_GUIDANCE);
}

function failedNotSent(run: RunState, code: CodeOf<typeof LoomFailureCode>, guidance: string): FailedOutcome {
  return { outputId: run.mintOutputId(), status: OutcomeStatus.failed, landed: Landed.no, code, guidance };
}
