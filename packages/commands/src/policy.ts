// The prompt-slot policy check every tool makes first, recorded on the run's trace.
import { type Authorization, authorize } from '@harness/ifc';
import type { RunState } from './run';
import type { ToolContext } from './tool';

/**
 * Asks `@harness/ifc` whether the task behind this call may use `tool`, and appends the decision to
 * `run.policyTrace` whatever it is, so the trace shows allowed calls as well as refused ones.
 */
export function authorizeTool(
  run: RunState,
  tool: string,
  effect: 'read' | 'write',
  ctx: ToolContext,
): Authorization {
  const decision = authorize({ mode: run.mode, slot: ctx.slot ?? 'absent', toolEffect: effect, tool });
  run.policyTrace.push({ tool, ...decision });
  return decision;
}
