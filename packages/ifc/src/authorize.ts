// Prompt-slot policy (seed 000 "Authorization" and "run_read_command"; notes/origins.md "Policy modes").
// The decision reads only the mode, the task's slot, the tool's effect class and the tool's name: never a
// label, never content, never a broker grant (an admission is not a grant, HC-156).

/** How the run's policy is enforced, from off to strictest. */
export const POLICY_MODES = ['disabled', 'observe', 'enforce-explicit', 'enforce-strict'] as const;
/** One of {@link POLICY_MODES}. */
export type PolicyMode = (typeof POLICY_MODES)[number];

/**
 * How the run's task was bound. `direct-command`: the person asked for it. `context`: it arrived as
 * context (a request a pattern submitted, say). `quote`: it is quoted material. `absent`: no binding.
 */
export const PROMPT_SLOTS = ['direct-command', 'context', 'quote', 'absent'] as const;
/** One of {@link PROMPT_SLOTS}. */
export type PromptSlot = (typeof PROMPT_SLOTS)[number];

/** A tool's effect class. A tool of unknown effect is never authorized. */
export const TOOL_EFFECTS = ['read', 'write'] as const;
/** One of {@link TOOL_EFFECTS}. */
export type ToolEffect = (typeof TOOL_EFFECTS)[number];

/** The tools `enforce-strict` admits for an explicitly `context`-bound task: the host-broker reads. */
export const STRICT_CONTEXT_READ_TOOLS = ['list_commands', 'run_read_command'] as const;

/** What {@link authorize} judges: one tool call (a batch is one call). */
export interface AuthorizeInput {
  readonly mode: PolicyMode;
  readonly slot: PromptSlot;
  readonly toolEffect: ToolEffect;
  /** The tool's name, as the harness registers it (e.g. `run_read_command`). */
  readonly tool: string;
}

/** Why a call was allowed. */
export type AllowReason =
  | 'cfc_disabled'
  | 'cfc_observe'
  | 'cfc_direct_command'
  | 'cfc_enforce_explicit_read'
  | 'cfc_enforce_strict_host_command_read';

/** Why a call was denied. */
export type DenyReason =
  | 'cfc_write_requires_direct_command'
  | 'cfc_enforce_strict_requires_direct_command'
  | 'cfc_policy_mode_unknown'
  | 'cfc_prompt_slot_unknown'
  | 'cfc_tool_effect_unknown'
  | 'cfc_tool_unknown';

/** Under `observe`: the first enforcing mode that would have denied the call, and why. */
export interface AuthorizationWarning {
  readonly wouldDenyUnder: 'enforce-explicit' | 'enforce-strict';
  readonly reasonCode: DenyReason;
}

/** The decision of {@link authorize}: allowed (with a `warning` under `observe`) or denied. */
export type Authorization =
  | { readonly allowed: true; readonly reasonCode: AllowReason; readonly warning?: AuthorizationWarning }
  | { readonly allowed: false; readonly reasonCode: DenyReason };

function field(input: unknown, key: string): unknown {
  return typeof input === 'object' && input !== null && Object.hasOwn(input, key)
    ? (input as Record<string, unknown>)[key]
    : undefined;
}

function oneOf<T extends string>(list: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (list as readonly string[]).includes(value);
}

function enforce(
  mode: 'enforce-explicit' | 'enforce-strict',
  slot: PromptSlot,
  effect: ToolEffect,
  tool: string,
): Authorization {
  if (slot === 'direct-command') return { allowed: true, reasonCode: 'cfc_direct_command' };
  if (effect === 'write') return { allowed: false, reasonCode: 'cfc_write_requires_direct_command' };
  if (mode === 'enforce-explicit') return { allowed: true, reasonCode: 'cfc_enforce_explicit_read' };
  // The one strict exception: host-broker reads for a task explicitly bound as context. Quoted or absent
  // authority never reaches it; the broker still checks its own grant on every invocation.
  if (slot === 'context' && oneOf(STRICT_CONTEXT_READ_TOOLS, tool)) {
    return { allowed: true, reasonCode: 'cfc_enforce_strict_host_command_read' };
  }
  return { allowed: false, reasonCode: 'cfc_enforce_strict_requires_direct_command' };
}

/**
 * Decides whether a tool call may run, from the policy mode, the task's prompt slot, the tool's effect
 * class and its name. Total: any input, however malformed, yields a decision, and missing or unknown
 * metadata (mode, slot, effect, or an empty tool name) is denied under every mode, `disabled` included.
 *
 * - `disabled`: allowed (`cfc_disabled`).
 * - `observe`: allowed (`cfc_observe`), with a `warning` naming the first enforcing mode that would deny.
 * - `enforce-explicit`: reads allowed; writes only for a `direct-command` task.
 * - `enforce-strict`: only a `direct-command` task, except `list_commands` and `run_read_command` (as
 *   reads) for a task explicitly bound as `context` (`cfc_enforce_strict_host_command_read`).
 *
 * Permissiveness never rises from `observe` to `enforce-explicit` to `enforce-strict`.
 */
export function authorize(input: AuthorizeInput): Authorization {
  const mode = field(input, 'mode');
  const slot = field(input, 'slot');
  const effect = field(input, 'toolEffect');
  const tool = field(input, 'tool');
  if (!oneOf(POLICY_MODES, mode)) return { allowed: false, reasonCode: 'cfc_policy_mode_unknown' };
  if (!oneOf(PROMPT_SLOTS, slot)) return { allowed: false, reasonCode: 'cfc_prompt_slot_unknown' };
  if (!oneOf(TOOL_EFFECTS, effect)) return { allowed: false, reasonCode: 'cfc_tool_effect_unknown' };
  if (typeof tool !== 'string' || tool.length === 0)
    return { allowed: false, reasonCode: 'cfc_tool_unknown' };

  switch (mode) {
    case 'disabled':
      return { allowed: true, reasonCode: 'cfc_disabled' };
    case 'observe': {
      for (const enforcing of ['enforce-explicit', 'enforce-strict'] as const) {
        const would = enforce(enforcing, slot, effect, tool);
        if (!would.allowed) {
          return {
            allowed: true,
            reasonCode: 'cfc_observe',
            warning: { wouldDenyUnder: enforcing, reasonCode: would.reasonCode },
          };
        }
      }
      return { allowed: true, reasonCode: 'cfc_observe' };
    }
    case 'enforce-explicit':
    case 'enforce-strict':
      return enforce(mode, slot, effect, tool);
  }
}
