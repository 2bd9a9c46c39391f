import { createHash } from 'node:crypto';
import { type Effects, getCommand, type Tier, unavailableFor } from '@harness/packs';
import { unknownCommandMessage } from '@harness/packs/loader';
import { serverToolEffects, serverToolTier } from './servers';
import type { Workspace } from './types';

/** The four tiers, in the order the docs list them. */
export const TIERS: readonly Tier[] = ['open', 'cautious', 'strict', 'readonly'];

/**
 * The action label of a call: `command:call:<pack>:<command>` for a pack command (CP-20), and
 * `mcp:call:<server>:<tool>` for a server tool (CP-21: neither is generalised). A label is for people and the audit log: nothing matches on it, and it never
 * changes a decision (CP-18).
 */
export function actionLabel(provider: 'command' | 'mcp', container: string, member: string): string {
  return `${provider}:call:${container}:${member}`;
}

/** Identifies one call for approvals: the command, the agent and a digest of the exact arguments. */
export interface ApprovalKey {
  readonly commandId: string;
  readonly agent: string;
  /** `sha256:<hex>` of the arguments' canonical JSON (keys sorted); see {@link approvalKey}. */
  readonly argsDigest: string;
}

/** What the gate tells an {@link ApprovalStore} when it records a request. */
export interface ApprovalRequestInfo {
  readonly action: string;
  readonly tier: Tier;
  readonly effects: Effects;
  /** Why approval is needed, one line (e.g. `strict tier: every call needs explicit approval`). */
  readonly reason: string;
}

/**
 * Where approvals live. This package only defines the interface; the host persists it (SQLite,
 * `loom approvals …`). Both methods are synchronous so the gate stays a plain function.
 * An approval is single-use and bound to one {@link ApprovalKey}: approving `rm x` does not approve
 * `rm y`, nor a second `rm x`.
 */
export interface ApprovalStore {
  /** Consumes an approved, unused approval for exactly this key; returns its id, or `undefined`. */
  take(key: ApprovalKey): { readonly id: string } | undefined;
  /** Records a pending request for this key (or returns the pending one already recorded); returns its id. */
  request(key: ApprovalKey, info: ApprovalRequestInfo): { readonly id: string };
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The approval key of a call: same command, agent and arguments (in any key order) give the same key. */
export function approvalKey(
  commandId: string,
  agent: string,
  args: Readonly<Record<string, unknown>>,
): ApprovalKey {
  const argsDigest = `sha256:${createHash('sha256').update(canonical(args)).digest('hex')}`;
  return { commandId, agent, argsDigest };
}

/** One in-memory approval, as {@link createMemoryApprovalStore} keeps it. */
export interface MemoryApproval {
  readonly id: string;
  readonly key: ApprovalKey;
  readonly info: ApprovalRequestInfo;
  status: 'pending' | 'approved' | 'denied' | 'used';
}

/**
 * An in-memory {@link ApprovalStore} for tests, demos and embedders without persistence; `approve`
 * and `deny` play the owner. Not shared between processes.
 */
export function createMemoryApprovalStore(): ApprovalStore & {
  readonly approvals: readonly MemoryApproval[];
  approve(id: string): boolean;
  deny(id: string): boolean;
} {
  const approvals: MemoryApproval[] = [];
  const same = (a: ApprovalKey, b: ApprovalKey) =>
    a.commandId === b.commandId && a.agent === b.agent && a.argsDigest === b.argsDigest;
  const setStatus = (id: string, from: MemoryApproval['status'], to: MemoryApproval['status']) => {
    const a = approvals.find((x) => x.id === id && x.status === from);
    if (a) a.status = to;
    return a !== undefined;
  };
  return {
    approvals,
    take(key) {
      const a = approvals.find((x) => x.status === 'approved' && same(x.key, key));
      if (!a) return undefined;
      a.status = 'used';
      return { id: a.id };
    },
    request(key, info) {
      const pending = approvals.find((x) => x.status === 'pending' && same(x.key, key));
      if (pending) return { id: pending.id };
      const id = `apr_${approvals.length + 1}`;
      approvals.push({ id, key, info, status: 'pending' });
      return { id };
    },
    approve: (id) => setStatus(id, 'pending', 'approved'),
    deny: (id) => setStatus(id, 'pending', 'denied'),
  };
}

/** The outcome of the gate. */
export type DecisionOutcome = 'allow' | 'deny' | 'approval_required';

/**
 * Machine codes of a decision (the host copies a deny's code into its answer's `reason`):
 * allow — `open_tier`, `read_auto_approved`, `confined_write`, `approved`, `no_governance`;
 * deny — `unknown_command`, `requirement_unmet`, `unknown_agent`, `not_granted`, `readonly_tier`, `scope_denied`,
 *   and the host's `plan_changed` (an approval taken for a plan the call would no longer run);
 * approval_required — `strict_tier`, `write_needs_approval`.
 */
export type DecisionCode =
  | 'open_tier'
  | 'read_auto_approved'
  | 'confined_write'
  | 'approved'
  | 'no_governance'
  | 'unknown_command'
  | 'requirement_unmet'
  | 'unknown_agent'
  | 'not_granted'
  | 'readonly_tier'
  | 'scope_denied'
  | 'strict_tier'
  | 'write_needs_approval'
  | 'plan_changed';

/** What {@link decide} returns. Every field is safe to log and to show the agent. */
export interface Decision {
  readonly outcome: DecisionOutcome;
  readonly code: DecisionCode;
  /** One line naming the action label, the tier and why (CP-22). */
  readonly reason: string;
  readonly commandId: string;
  /** `command:call:<pack>:<command>`. */
  readonly action: string;
  /** Resolved tier (absent only when the command is unknown). */
  readonly tier?: Tier;
  readonly effects?: Effects;
  readonly scopesRequired: readonly string[];
  readonly scopesGranted: readonly string[];
  readonly scopesDenied: readonly string[];
  /** The approval consumed (`approved`) or requested (`approval_required`), when a store was given. */
  readonly approvalId?: string;
}

/** Who is calling: an agent id declared in the workspace, or an explicit caller. */
export type Caller =
  | string
  | {
      /** Recorded in approval keys; default `anonymous`. */
      readonly id?: string;
      /** Scopes the caller holds (its `allowed_scopes`). */
      readonly scopes: readonly string[];
      /** Manifest ids the caller is granted; when given, a command outside it is denied `not_granted`. */
      readonly commands?: readonly string[];
      /** Servers the caller is granted whole (`server:<id>`), beside `commands`. */
      readonly servers?: readonly string[];
    };

/** Input of {@link decide}. */
export interface DecideInput {
  /** Manifest id `<pack>.<command>`, or `<server>.<tool>` for a server tool. */
  readonly commandId: string;
  /**
   * A server tool's upstream name, as its server lists it (its manifest id's member may be mapped,
   * SV-08): what its `tools` and `permission_overrides` keys name. Default: the id's member.
   */
  readonly upstream?: string;
  /**
   * A server tool's definition a person accepted says `annotations.readOnlyHint: true`: with the
   * server's `trust_annotations`, an undeclared tool is then a read (SV-07).
   */
  readonly pinnedReadOnly?: boolean;
  readonly caller: Caller;
  /** The call's arguments (only hashed, into the approval key). Default `{}`. */
  readonly args?: Readonly<Record<string, unknown>>;
  /** Where approvals are taken from and requested in. Without one, a call needing approval is `approval_required` with no id. */
  readonly approvals?: ApprovalStore;
  /**
   * Whether governance (the approval step) is configured. Default `true`. `false` reproduces the
   * seed's `governance is None`: a call that passes the tier, grant and scope checks is allowed
   * (CP-13); `readonly` still denies a write.
   */
  readonly governance?: boolean;
}

/**
 * The governance gate of one pack-command call (seed 003, "Governance"), a pure function of the
 * workspace, the call and the approval store. In order:
 * 1. unknown command → deny `unknown_command` (naming what exists); a command of a pack left out
 *    because a requirement is unmet → deny `requirement_unmet` (CP-14);
 * 2. an agent id not in the workspace → deny `unknown_agent`; a command outside the caller's grants
 *    → deny `not_granted` (CP-65);
 * 3. tier `readonly` and effects `write` → deny `readonly_tier`, before anything else is consulted (CP-11);
 * 4. scopes: `required ∖ allowed` non-empty → deny `scope_denied` (CP-17). This project checks
 *    scopes on every tier, `open` included: scopes are authorization, tiers are approval (CP-07);
 * 5. `open` → allow; no governance → allow; `read` under `cautious` or `readonly` → allow; a
 *    `write` under `cautious` that its pack lists in `unattended_when_confined` and that runs
 *    confined on this machine (the load keeps `unattended` only then) → allow `confined_write`;
 *    `strict` (any call) and a `write` under `cautious` → an approval from the store, else
 *    `approval_required`.
 * Effects come from the declaration (undeclared = write); the action label is never scanned (CP-62).
 */
export function decide(workspace: Workspace, input: DecideInput): Decision {
  const { commandId } = input;
  const gated = gatedOf(workspace, commandId, input.upstream, input.pinnedReadOnly);
  const dot = commandId.indexOf('.');
  const container = commandId.slice(0, Math.max(dot, 0));
  const member = commandId.slice(dot + 1);
  const action = actionLabel(
    gated?.kind === 'server' ? 'mcp' : 'command',
    container,
    gated?.member ?? member,
  );
  if (!gated) return unknownCommand(workspace, commandId, action);
  const base = { commandId, action, tier: gated.tier, effects: gated.effects } as const;
  const caller = input.caller;
  const resolved = resolveCaller(workspace, caller);
  // Only an agent id, a string, can name no one.
  if (resolved === undefined) return unknownAgent(base, gated, caller as string);
  const scopesGranted = gated.scopes.filter((s) => resolved.allowed.includes(s));
  const scopesDenied = gated.scopes.filter((s) => !resolved.allowed.includes(s));
  const call: GateCall = {
    command: gated,
    caller: resolved,
    scoped: { ...base, scopesRequired: gated.scopes, scopesGranted, scopesDenied },
    tierText: `tier ${gated.tier}, effects ${gated.effects}`,
  };
  return refused(call) ?? allowedOutright(call, input.governance) ?? approvalStep(call, input);
}

/**
 * What the gate reads of a pack command or a server tool: where it comes from, its tier, its
 * effects as declared, the scopes it requires and whether it may run unattended.
 */
export interface Gated {
  readonly kind: 'pack' | 'server';
  /** The pack or server id. */
  readonly container: string;
  /** The command id, or the tool's upstream name. */
  readonly member: string;
  readonly tier: Tier;
  readonly effects: Effects;
  readonly effectsDeclared: boolean;
  readonly scopes: readonly string[];
  readonly unattended?: true;
}

/**
 * The pack command or server tool `commandId` names, as the gate reads it; undefined when none.
 * `pinnedReadOnly`: see {@link DecideInput.pinnedReadOnly}.
 */
export function gatedOf(
  workspace: Workspace,
  commandId: string,
  upstream?: string,
  pinnedReadOnly?: boolean,
): Gated | undefined {
  const command = getCommand(workspace, commandId);
  if (command) {
    return {
      kind: 'pack',
      container: command.pack,
      member: command.id,
      tier: command.tier,
      effects: command.effects,
      effectsDeclared: command.effectsDeclared,
      scopes: command.scopes,
      ...(command.unattended ? { unattended: true } : {}),
    };
  }
  const dot = commandId.indexOf('.');
  const server = dot > 0 ? workspace.servers.find((s) => s.id === commandId.slice(0, dot)) : undefined;
  if (!server) return undefined;
  const name = upstream ?? commandId.slice(dot + 1);
  return {
    kind: 'server',
    container: server.id,
    member: name,
    tier: serverToolTier(server, name),
    effects: serverToolEffects(server, name, pinnedReadOnly === true),
    effectsDeclared: server.tools[name] !== undefined,
    scopes: server.scopes,
  };
}

// What a decision says of the call once its command is known: every field but the verdict.
type ScopedFields = Pick<
  Decision,
  'commandId' | 'action' | 'tier' | 'effects' | 'scopesRequired' | 'scopesGranted' | 'scopesDenied'
>;

// The caller as the gate checks it: the id approvals are keyed on, the scopes it holds and, when
// it is bounded by grants, the manifest ids it is granted.
interface ResolvedCaller {
  readonly id: string;
  readonly allowed: readonly string[];
  readonly granted: readonly string[] | undefined;
  /** Servers granted whole (`server:<id>`, CP-69). */
  readonly servers: readonly string[];
}

// One call past the lookups: what the policy, tier and approval steps read.
interface GateCall {
  readonly command: Gated;
  readonly caller: ResolvedCaller;
  readonly scoped: ScopedFields;
  readonly tierText: string;
}

/** Step 1: deny a command the workspace does not offer, saying whether its pack was left out. */
function unknownCommand(workspace: Workspace, commandId: string, action: string): Decision {
  const none: readonly string[] = [];
  const gone = unavailableFor(workspace, commandId);
  return {
    outcome: 'deny',
    code: gone ? 'requirement_unmet' : 'unknown_command',
    reason: `${action} denied: ${unknownCommandMessage(workspace, commandId)}`,
    commandId,
    action,
    scopesRequired: none,
    scopesGranted: none,
    scopesDenied: none,
  };
}

/** The caller's id, scopes and grants; `undefined` for an agent id the workspace does not declare. */
function resolveCaller(workspace: Workspace, caller: Caller): ResolvedCaller | undefined {
  if (typeof caller === 'string') {
    const agent = workspace.agents.find((a) => a.id === caller);
    if (!agent) return undefined;
    return { id: agent.id, allowed: agent.scopes, granted: agent.commands, servers: agent.servers };
  }
  return {
    id: caller.id ?? 'anonymous',
    allowed: caller.scopes,
    granted: caller.commands,
    servers: caller.servers ?? [],
  };
}

/** Step 2: deny an agent id the workspace does not declare. */
function unknownAgent(
  base: Pick<Decision, 'commandId' | 'action' | 'tier' | 'effects'>,
  command: Gated,
  caller: string,
): Decision {
  const none: readonly string[] = [];
  return {
    ...base,
    outcome: 'deny',
    code: 'unknown_agent',
    reason: `${base.action} denied: unknown agent "${caller}"`,
    scopesRequired: command.scopes,
    scopesGranted: none,
    scopesDenied: command.scopes,
  };
}

/** Steps 2 to 4: a command outside the grants, a write under `readonly`, or missing scopes; else `undefined`. */
function refused({ command, caller, scoped, tierText }: GateCall): Decision | undefined {
  const { commandId, action, scopesDenied } = scoped;
  const held =
    caller.granted === undefined ||
    caller.granted.includes(commandId) ||
    (command.kind === 'server' && caller.servers.includes(command.container));
  if (!held) {
    return {
      ...scoped,
      outcome: 'deny',
      code: 'not_granted',
      reason: `${action} denied: "${caller.id}" holds no grant for ${commandId}`,
    };
  }
  if (command.tier === 'readonly' && command.effects === 'write') {
    return {
      ...scoped,
      outcome: 'deny',
      code: 'readonly_tier',
      reason: `${action} denied: ${command.kind} "${command.container}" is readonly and ${commandId} declares effects write${command.effectsDeclared ? '' : ' (undeclared effects mean write)'}`,
    };
  }
  if (scopesDenied.length > 0) {
    return {
      ...scoped,
      outcome: 'deny',
      code: 'scope_denied',
      reason: `${action} denied (${tierText}): missing scopes ${scopesDenied.join(', ')}; held: ${caller.allowed.join(', ') || 'none'}`,
    };
  }
  return undefined;
}

/** Step 5, without approval: the `open` tier, no governance, a read below `strict` or a confined write under `cautious`; else `undefined`. */
function allowedOutright(
  { command, scoped, tierText }: GateCall,
  governance: boolean | undefined,
): Decision | undefined {
  const { action } = scoped;
  if (command.tier === 'open') {
    return {
      ...scoped,
      outcome: 'allow',
      code: 'open_tier',
      reason: `${action} allowed: ${tierText}, open tier`,
    };
  }
  if (governance === false) {
    return {
      ...scoped,
      outcome: 'allow',
      code: 'no_governance',
      reason: `${action} allowed: ${tierText}, no governance configured`,
    };
  }
  if (command.tier !== 'strict' && command.effects === 'read') {
    return {
      ...scoped,
      outcome: 'allow',
      code: 'read_auto_approved',
      reason: `${action} allowed: ${tierText}, reads are auto-approved`,
    };
  }
  if (command.tier === 'cautious' && command.effects === 'write' && command.unattended === true) {
    return {
      ...scoped,
      outcome: 'allow',
      code: 'confined_write',
      reason: `${action} allowed: ${tierText}, runs confined (writes only its project, no network, no secret): no approval needed`,
    };
  }
  return undefined;
}

/** Step 5, with approval: an approval taken from the store allows; else one is requested. */
function approvalStep({ command, caller, scoped, tierText }: GateCall, input: DecideInput): Decision {
  const { commandId, action } = scoped;
  const code = command.tier === 'strict' ? 'strict_tier' : 'write_needs_approval';
  const why =
    code === 'strict_tier'
      ? 'strict tier: every call needs explicit approval'
      : 'cautious tier: a write needs approval';
  const key = approvalKey(commandId, caller.id, input.args ?? {});
  const taken = input.approvals?.take(key);
  if (taken) {
    return {
      ...scoped,
      outcome: 'allow',
      code: 'approved',
      reason: `${action} allowed: ${tierText}, approval ${taken.id}`,
      approvalId: taken.id,
    };
  }
  const requested = input.approvals?.request(key, {
    action,
    tier: command.tier,
    effects: command.effects,
    reason: why,
  });
  return {
    ...scoped,
    outcome: 'approval_required',
    code,
    reason: `${action} needs approval: ${why}${requested ? ` (request ${requested.id})` : ''}`,
    ...(requested ? { approvalId: requested.id } : {}),
  };
}
