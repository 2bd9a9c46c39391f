// One call of an upstream server's tool, through the same steps as a pack command's: the gate (tier
// × declared effects × grants × scopes) with the host's approvals, bound to a plan that covers the
// server's transport, the tool's upstream name and definition and the arguments (SV-20); the `start`
// row before anything goes upstream; the call bounded by the server's timeout and output ceiling,
// cancelled upstream when either ends it (SV-14); the answer a `tool_result` (SV-15).
import { approveCommand } from '@harness/config/instance';
import { type CredentialSource, redactDeep } from '@harness/packs';
import type { AnswerOf } from '@harness/protocol';
import type { CallOutcome, ServerClient } from '@harness/servers';
import type { ApprovalRecord } from '@harness/store';
import {
  auditEvent,
  type Decision,
  type McpServer,
  type ServerCallRecord,
  type Workspace,
} from '@harness/workspace';
import { planHash } from '../approvals/preview';
import { decideWithApprovals } from '../approvals/request';
import { heldAnswer, refusedAnswer } from '../command/answers';
import type { PackCallContext, PackOutcome, Unavailable } from '../command/types';
import { pinnedReadOnly, type ServedTool } from './rows';

/** What every call of one server backend shares. */
export interface ServerCallState {
  readonly workspace: Workspace;
  readonly credentials: CredentialSource | undefined;
  readonly instanceDir: string | undefined;
}

/**
 * The transport as a plan covers it: what would make another server answer the call. Values of its
 * env and headers are left out (they hold credentials); their names are in.
 */
export function transportPlan(server: McpServer): Record<string, unknown> {
  const t = server.transport;
  return t.kind === 'stdio'
    ? {
        kind: 'stdio',
        command: t.command,
        cwd: t.cwd,
        env: Object.keys(t.env).sort(),
        sandbox: server.sandbox,
      }
    : { kind: 'http', url: t.url, headers: Object.keys(t.headers).sort() };
}

/**
 * The plan an approval of a server tool call binds (SV-20): the transport, the upstream name, the
 * definition hash (the accepted one, when the server pins its tools) with the definition it hashes,
 * and the arguments. A definition accepted anew between approval and call changes the plan.
 */
export function serverPlan(tool: ServedTool, args: Record<string, unknown>): Record<string, unknown> {
  return {
    server: tool.server.id,
    transport: transportPlan(tool.server),
    tool: tool.upstream,
    definitionHash: tool.hash,
    definition: tool.definition,
    args,
  };
}

/** Runs one admitted, validated call of a server tool. */
export async function runServerCall(
  state: ServerCallState,
  id: string,
  tool: ServedTool | undefined,
  client: ServerClient | undefined,
  unavailable: Unavailable | undefined,
  args: Record<string, unknown>,
  ctx: PackCallContext,
): Promise<PackOutcome> {
  if (tool === undefined || client === undefined) {
    const reason = unavailable?.reason ?? 'server_unavailable';
    const message = unavailable?.message ?? `${id} is not a tool its MCP server lists now`;
    return { answer: refusedAnswer(id, 'unknown_command', reason, message), audit: {} };
  }
  const trusted = pinnedReadOnly(tool.server, tool.definition);
  const decision = await decideWithApprovals(
    state.workspace,
    { commandId: id, caller: ctx.agent, args, upstream: tool.upstream, pinnedReadOnly: trusted },
    ctx,
    () => ({ args: { ...args }, display: null, argv: null, planHash: planHash(serverPlan(tool, args)) }),
  );
  const consumed =
    decision.approvalId !== undefined && (decision.outcome === 'allow' || decision.code === 'plan_changed')
      ? await ctx.store.getApproval(decision.approvalId)
      : undefined;
  const audit = (serverCall?: ServerCallRecord): Record<string, unknown> => ({
    ...(auditEvent(state.workspace, id, {
      agent: ctx.actor,
      decision,
      upstream: tool.upstream,
      pinnedReadOnly: trusted,
      ...(serverCall ? { serverCall } : {}),
      ...(state.credentials ? { credentials: state.credentials } : {}),
    })?.payload ?? {}),
    ...(consumed === undefined ? {} : approvalFields(consumed)),
  });
  if (decision.outcome === 'deny')
    return { answer: refusedAnswer(id, 'refused', decision.code, decision.reason), audit: audit() };
  if (decision.outcome === 'approval_required')
    return { answer: await held(state, id, decision, ctx), audit: audit() };
  if (ctx.signal?.aborted) return cancelled(id, audit());
  try {
    await ctx.recordStart();
  } catch (error) {
    const message = `${id} was not sent: ${(error as Error).message}`;
    return {
      answer: refusedAnswer(id, 'failed', 'not_recorded', message),
      audit: { ...audit(), refused_before_run: 'not_recorded' },
    };
  }
  const server = tool.server;
  const outcome = await client.call(tool.upstream, args, {
    timeoutMs: server.timeoutMs,
    maxOutputBytes: server.maxOutputBytes,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const secrets = secretsOf(state, server);
  const answer = redactDeep(toolAnswer(id, tool, outcome), secrets);
  const record: ServerCallRecord = {
    status: outcome.status,
    durationMs: Math.round(outcome.durationMs),
    mayHaveLanded: answer.mayHaveLanded,
    ...('outputExceeded' in outcome ? { outputExceeded: outcome.outputExceeded } : {}),
    transport:
      server.transport.kind === 'stdio'
        ? `stdio${server.sandbox ? ' confined' : ' unconfined'}`
        : `http ${new URL(server.transport.url).origin}`,
  };
  return { answer, audit: audit(record) };
}

/** The answer of a call that went upstream (or was refused by the client before it was sent). */
export function toolAnswer(id: string, tool: ServedTool, outcome: CallOutcome): AnswerOf<'tool_result'> {
  const read = tool.row.effect === 'read';
  const base = { server: tool.server.id, tool: tool.upstream, durationMs: Math.round(outcome.durationMs) };
  if ('text' in outcome) {
    const ok = outcome.status === 'ok';
    return {
      ok,
      id,
      code: ok ? 'ok' : 'failed',
      ...(ok ? {} : { reason: 'tool_error' as const }),
      // A write the server answered for ran there, whether it says it failed or not.
      mayHaveLanded: !read,
      completed: [],
      kind: 'tool_result',
      body: {
        ...base,
        status: outcome.status,
        text: outcome.text,
        ...(outcome.structured === undefined ? {} : { structured: outcome.structured as never }),
        ...(ok
          ? {}
          : { message: `MCP server "${tool.server.id}" answered that ${tool.upstream} failed (isError)` }),
        outputExceeded: outcome.outputExceeded,
      },
    };
  }
  // Refused before it was sent (`failed`): nothing went upstream. Otherwise it may have run there.
  const landed = read ? false : outcome.status === 'failed' ? false : outcome.mayHaveLanded !== false;
  return {
    ok: false,
    id,
    code: 'failed',
    reason: outcome.status,
    mayHaveLanded: landed,
    completed: [],
    kind: 'tool_result',
    body: {
      ...base,
      status: outcome.status,
      text: '',
      message: outcome.message,
      outputExceeded: outcome.status === 'too_large',
    },
  };
}

/** The answer of a call held for a person's approval, or refused by one (or by nobody in time). */
async function held(
  state: ServerCallState,
  id: string,
  decision: Decision,
  ctx: PackCallContext,
): Promise<AnswerOf<'held'>> {
  const approvalId = decision.approvalId;
  const record = approvalId ? await ctx.store.getApproval(approvalId) : undefined;
  const approval =
    approvalId === undefined
      ? undefined
      : { id: approvalId, expires_at: record?.expires_at ?? null, plan_hash: record?.plan_hash ?? null };
  if (record?.status === 'denied')
    return heldAnswer(
      id,
      'approval_denied',
      `${id}: this exact call was denied by ${record.decided_by ?? 'a person'} (approval ${record.id}); offer it to the person rather than retrying`,
      approval,
    );
  const expired =
    record?.status === 'expired' ||
    (record?.status === 'pending' && Date.parse(record.expires_at) <= Date.now());
  if (expired)
    return heldAnswer(
      id,
      'approval_expired',
      `${id}: approval ${record?.id} expired at ${record?.expires_at} with no decision, so this call is refused and nothing was sent; tell the person, and make the identical call again only if they want it asked anew`,
      approval,
    );
  const hint = approvalId === undefined ? '' : ` (${approveCommand(approvalId, state.instanceDir).line})`;
  return heldAnswer(
    id,
    'approval_required',
    `a person must approve it${hint}, then the identical call runs once`,
    approval,
  );
}

function cancelled(id: string, audit: Record<string, unknown>): PackOutcome {
  return {
    answer: refusedAnswer(id, 'failed', 'cancelled', `${id} was cancelled before it was sent; nothing ran`),
    audit: { ...audit, refused_before_run: 'cancelled' },
  };
}

function approvalFields(consumed: ApprovalRecord): Record<string, unknown> {
  return {
    approval: { id: consumed.id, plan_hash: consumed.plan_hash },
    ...(consumed.decided_by === null ? {} : { approved_by: consumed.decided_by }),
  };
}

/** The credential values a server's answer must not carry (SV-11: redacted from output). */
function secretsOf(state: ServerCallState, server: McpServer): string[] {
  return server.credentials
    .map((n) => state.credentials?.get(n))
    .filter((v): v is string => typeof v === 'string' && v !== '');
}
