import type { Confinement } from '@harness/exec';
import {
  type CredentialSource,
  type Effects,
  getCommand,
  type PackCommand,
  type PackRunOutcome,
  redactDeep,
  type Tier,
} from '@harness/packs';
import type { Decision, DecisionCode, DecisionOutcome } from './governance';
import { actionLabel, gatedOf } from './governance';
import type { Workspace } from './types';

/** The structured part of an audit event; queries read these fields, never the action string (CP-26). */
export interface AuditPayload {
  /** `command` for a pack command, `mcp` for a server tool (CP-24, CP-25). */
  readonly provider: 'command' | 'mcp';
  /** Pack id, or server id. */
  readonly container: string;
  /** Command id inside the pack, or the tool's upstream name. */
  readonly member: string;
  readonly effects: Effects;
  readonly tier: Tier;
  readonly agent?: string;
  readonly decision?: DecisionOutcome;
  readonly code?: DecisionCode;
  readonly reason?: string;
  readonly approvalId?: string;
  readonly scopesRequired?: readonly string[];
  readonly scopesDenied?: readonly string[];
  /** The run, when one happened: what ran (argv as rendered, redacted) and how it ended. No output is recorded. */
  readonly run?: {
    readonly status: PackRunOutcome['status'];
    readonly argv: readonly string[];
    readonly exitCode: number | null;
    readonly signal: string | null;
    readonly timedOut: boolean;
    readonly outputExceeded: boolean;
    readonly durationMs: number;
    /** Whether and how it was confined; when not, why not. */
    readonly confinement: AuditConfinement;
  };
  /** A server tool's call, when one went upstream: how it ended. No arguments, no result. */
  readonly upstream?: ServerCallRecord;
}

/** How one upstream tool call ended, as its audit event records it. */
export interface ServerCallRecord {
  readonly status: 'ok' | 'tool_error' | 'timeout' | 'cancelled' | 'died' | 'failed' | 'too_large';
  readonly durationMs: number;
  readonly mayHaveLanded?: boolean | 'unknown';
  readonly outputExceeded?: boolean;
  /** The server's transport (`stdio` confined or not, `http` and its origin). */
  readonly transport: string;
}

/** The confinement of an audited run: the sandbox it ran in, or why it ran without one. */
export type AuditConfinement =
  | (Confinement & { readonly confined: true })
  | { readonly confined: false; readonly reason: string };

/** One audit event: `action` is the label (CP-23), `payload` the fields (CP-24). */
export interface AuditEvent {
  readonly action: string;
  readonly payload: AuditPayload;
}

/** Input of {@link auditEvent}. */
export interface AuditInput {
  readonly agent?: string;
  readonly decision?: Decision;
  readonly outcome?: PackRunOutcome;
  /** When given, every credential value is swept out of the event once more (belt and braces). */
  readonly credentials?: CredentialSource;
  /** A server tool's upstream name (its manifest id's member may be mapped, SV-08). */
  readonly upstream?: string;
  /** See `DecideInput.pinnedReadOnly`. */
  readonly pinnedReadOnly?: boolean;
  /** A server tool call that went upstream. */
  readonly serverCall?: ServerCallRecord;
}

function auditConfinement(workspace: Workspace, command: PackCommand, ran: Confinement): AuditConfinement {
  if (ran.confined) return ran;
  const status = workspace.sandbox;
  const reason =
    status.mode === 'off'
      ? 'sandbox_mode is off'
      : status.unavailable !== undefined && status.mode === 'preferred'
        ? `sandbox_mode preferred and no mechanism works: ${status.unavailable.reason}`
        : command.sandbox === null
          ? command.effects === 'read'
            ? 'its pack or command says sandbox: false'
            : 'a write command without a sandbox block'
          : 'not confined';
  return { confined: false, reason };
}

/**
 * Builds the audit event of a pack-command call: decided (allowed, denied, awaiting approval) and,
 * when it ran, how the run ended. Denied and refused calls are audited too (CP-23's open question).
 * Arguments and output are not part of the event; the rendered argv is, and a credential never is:
 * credentials reach a child only through env (CP-38, CP-40). Returns `undefined` for an unknown
 * command id.
 */
export function auditEvent(
  workspace: Workspace,
  commandId: string,
  input: AuditInput = {},
): AuditEvent | undefined {
  const command = getCommand(workspace, commandId);
  if (!command) return serverAuditEvent(workspace, commandId, input);
  const { decision, outcome } = input;
  const payload: AuditPayload = {
    provider: 'command',
    container: command.pack,
    member: command.id,
    effects: command.effects,
    tier: command.tier,
    ...(input.agent === undefined ? {} : { agent: input.agent }),
    ...decisionFields(decision),
    ...(outcome
      ? {
          run: {
            status: outcome.status,
            argv: outcome.argv,
            exitCode: outcome.exitCode,
            signal: outcome.signal,
            timedOut: outcome.timedOut,
            outputExceeded: outcome.outputExceeded,
            durationMs: outcome.durationMs,
            confinement: auditConfinement(workspace, command, outcome.confinement),
          },
        }
      : {}),
  };
  const event: AuditEvent = { action: actionLabel('command', command.pack, command.id), payload };
  if (!input.credentials) return event;
  const pack = workspace.packs.find((p) => p.id === command.pack);
  return redactDeep(event, secretsOf(pack?.credentials ?? [], input.credentials));
}

/** The secrets among `names` that the source has a value for. */
function secretsOf(names: readonly string[], credentials: CredentialSource): string[] {
  return names.map((n) => credentials.get(n)).filter((v): v is string => typeof v === 'string' && v !== '');
}

/** The decision's fields of an audit payload. */
function decisionFields(decision: Decision | undefined): Partial<AuditPayload> {
  return decision
    ? {
        decision: decision.outcome,
        code: decision.code,
        reason: decision.reason,
        scopesRequired: decision.scopesRequired,
        scopesDenied: decision.scopesDenied,
        ...(decision.approvalId === undefined ? {} : { approvalId: decision.approvalId }),
      }
    : {};
}

/**
 * The audit event of a server tool call (CP-25): `mcp:call:<server>:<tool>`, provider `mcp`, the
 * server as container, the upstream tool name as member, the effects the owner declared
 * (undeclared: write). `undefined` when `commandId` names no server of the workspace.
 */
function serverAuditEvent(
  workspace: Workspace,
  commandId: string,
  input: AuditInput,
): AuditEvent | undefined {
  const gated = gatedOf(workspace, commandId, input.upstream, input.pinnedReadOnly);
  if (gated?.kind !== 'server') return undefined;
  const payload: AuditPayload = {
    provider: 'mcp',
    container: gated.container,
    member: gated.member,
    effects: gated.effects,
    tier: gated.tier,
    ...(input.agent === undefined ? {} : { agent: input.agent }),
    ...decisionFields(input.decision),
    ...(input.serverCall === undefined ? {} : { upstream: input.serverCall }),
  };
  const event: AuditEvent = { action: actionLabel('mcp', gated.container, gated.member), payload };
  const server = workspace.servers.find((s) => s.id === gated.container);
  if (!input.credentials || !server) return event;
  return redactDeep(event, secretsOf(server.credentials, input.credentials));
}
