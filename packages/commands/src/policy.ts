// The prompt-slot policy check every tool makes first, recorded on the run's trace.
import { type Authorization, authorize } from '@harness/ifc';
import { POLICY_TRACE_KEPT, type RunState } from './run';
import type { ToolContext } from './tool';

/**
 * Asks `@harness/ifc` whether the task behind this call may use `tool`, and appends the decision to
 * `run.policyTrace` whatever it is, so the trace shows allowed calls as well as refused ones. The
 * trace keeps the latest {@link POLICY_TRACE_KEPT} decisions.
 */
export function authorizeTool(
  run: RunState,
  tool: string,
  effect: 'read' | 'write',
  ctx: ToolContext,
): Authorization {
  const decision = authorize({ mode: run.mode, slot: ctx.slot ?? 'absent', toolEffect: effect, tool });
  run.policyTrace.push({ tool, ...decision });
  if (run.policyTrace.length > POLICY_TRACE_KEPT) run.policyTrace.shift();
  return decision;
}
