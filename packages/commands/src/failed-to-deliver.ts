// The `failed_to_deliver` results of the host command tools: a whole tool call that sent nothing.
import { authorizeTool } from './policy';
import type { RunState } from './run';
import type { ToolContext, ToolResult } from './tool';

/** A tool call that stopped before anything reached the host (`landed: "no"`). */
export function failedToDeliver(run: RunState, code: string, message: string): ToolResult {
  return { outputId: run.mintOutputId(), status: 'failed_to_deliver', landed: 'no', code, message };
}

/** The result of a tool built without a host configuration (`alwaysRegister`). */
export function notConfigured(run: RunState): ToolResult {
  return failedToDeliver(run, 'not_configured', 'No host configuration is available to this run.');
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
): ToolResult | undefined {
  const decision = authorizeTool(run, tool, effect, ctx);
  if (decision.allowed) return undefined;
  return {
    outputId: run.mintOutputId(),
    status: 'failed_to_deliver',
    landed: 'no',
    code: 'not_authorized',
    reasonCode: decision.reasonCode,
    message: `The run's policy does not let this task call ${tool}; nothing was sent.`,
  };
}
