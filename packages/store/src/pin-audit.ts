// The audit event of a person's decision on an MCP server tool's definition (SV-19). Both stores
// write it in the decision's own transaction, so a pin is never without its row, nor a row without
// its pin (docs/servers.md, "Review").
import type { AuditEventInput, ToolDecision } from './types';

/** The audit actions of pin decisions (phase `pin`). */
export const PinAction = {
  accepted: 'server:tool_accepted',
  rejected: 'server:tool_rejected',
} as const;

/** The audit event of `decision`; `previous` is the hash the tool was pinned to before, if any. */
export function pinEvent(decision: ToolDecision, previous: string | undefined): AuditEventInput {
  return {
    run: 'servers',
    actor: decision.by,
    job: null,
    command: `${decision.server}:${decision.tool}`,
    action: PinAction[decision.decision],
    phase: 'pin',
    outcome: decision.decision,
    code: 'ok',
    reason: null,
    payload: {
      server: decision.server,
      tool: decision.tool,
      hash: decision.hash,
      via: decision.via,
      ...(previous === undefined ? {} : { previous }),
      ...(decision.assertion === undefined ? {} : { assertion: decision.assertion }),
    },
  };
}
