// The `failed_to_deliver` results of the tools: a whole tool call that sent nothing.
import type { CodeOf } from '@harness/errors';
import type { NotDeliveredOutcome } from './outcome';
import { DeliveryCode, Landed, OutcomeStatus } from './outcome-codes';
import { authorizeTool } from './policy';
import type { RunState } from './run';
import type { ToolContext } from './tool';

/** A code of a call that sent nothing: every {@link DeliveryCode} but `answer_lost`. */
export type NotSentCode = Exclude<CodeOf<typeof DeliveryCode>, typeof DeliveryCode.answer_lost>;

/** A tool call that stopped before anything reached the host (`landed: "no"`). */
export function failedToDeliver(run: RunState, code: NotSentCode, message: string): NotDeliveredOutcome {
  return notDelivered(code, message, run.mintOutputId());
}

/**
 * The same without an output id: for a call refused before any run is at hand (an unknown tool, a
 * text that is not JSON, an input nested too deep).
 */
export function notDelivered(code: NotSentCode, message: string, outputId?: string): NotDeliveredOutcome {
  return {
    ...(outputId === undefined ? {} : { outputId }),
    status: OutcomeStatus.failed_to_deliver,
    landed: Landed.no,
    code,
    message,
  };
}

/** The result of a tool built without a host configuration (`alwaysRegister`). */
export function notConfigured(run: RunState): NotDeliveredOutcome {
  return failedToDeliver(run, DeliveryCode.not_configured, 'No host configuration is available to this run.');
}

/**
 * Checks the run's prompt-slot policy for `tool`: `undefined` when the call may go on, else the
 * `not_authorized` result carrying `@harness/ifc`'s reason code.
 */
export function policyRefusal(
  run: RunState,
  tool: string,
  ctx: ToolContext,
  effect: 'read' | 'write',
): NotDeliveredOutcome | undefined {
  const decision = authorizeTool(run, tool, effect, ctx);
  if (decision.allowed) return undefined;
  return {
    outputId: run.mintOutputId(),
    status: OutcomeStatus.failed_to_deliver,
    landed: Landed.no,
    code: DeliveryCode.not_authorized,
    reasonCode: decision.reasonCode,
    message: `The run's policy does not let this task call ${tool}; nothing was sent.`,
  };
}
