// What every Loom tool call starts with: the turn's context, the policy gate, and the host client
// the call goes through (one per tool set, or one per direct interactive session).
import { createHash } from 'node:crypto';
import type { AuthoringConfig } from './config';
import { createHostClient } from './host/client';
import type { HostClient } from './host/types';
import { notConfigured, refused } from './loom-failures';
import type { FailedOutcome, RefusedOutcome } from './outcome';
import { LoomRefusalCode } from './outcome-codes';
import type { PatternResolver } from './pattern';
import { authorizeTool } from './policy';
import type { ToolContext } from './tool';

/** Context the authoring tools read beyond {@link ToolContext}. */
export interface AuthoringContext extends ToolContext {
  /**
   * An interactive turn: its own `loomId` binds context reads, and a turn without one clears the
   * configuration's `boundLoomId`. Absent for a batch run.
   */
  turn?: { loomId?: string | undefined; sessionId?: string | undefined } | undefined;
}

/** What the three Loom tools share for their lifetime. */
export interface LoomToolSetup {
  config: AuthoringConfig | undefined;
  /** The client for every call; `undefined` where each call picks its own (see {@link startLoomCall}). */
  client: HostClient | undefined;
  resolver: PatternResolver | undefined;
}

/**
 * The receipt namespace of a direct interactive call: the configured run identity joined with a
 * SHA-256 of it and the stable session id, so each session's receipts are its own and stable
 * across turns. At most 128 characters.
 */
export function directSessionRunId(runId: string, sessionId: string): string {
  const digest = createHash('sha256').update(`${runId}\n${sessionId}`, 'utf8').digest('hex').slice(0, 32);
  return `${runId.slice(0, 128 - 33)}.${digest}`;
}

/**
 * Starts a Loom tool call: checks the run's policy for `tool`, then finds the client. Either the
 * call goes on with that client, or `result` is what the tool returns (refused, not configured).
 */
export function startLoomCall(
  tool: string,
  effect: 'read' | 'write',
  ctx: AuthoringContext,
  setup: LoomToolSetup,
): { ok: true; client: HostClient } | { ok: false; result: RefusedOutcome | FailedOutcome } {
  const run = ctx.run;
  const decision = authorizeTool(run, tool, effect, ctx);
  if (!decision.allowed) {
    const result = refused(
      run,
      LoomRefusalCode.not_authorized,
      `The run's policy does not let this task call ${tool}.`,
      {
        reasonCode: decision.reasonCode,
      },
    );
    return { ok: false, result };
  }
  const client = clientFor(setup, ctx);
  return client ? { ok: true, client } : { ok: false, result: notConfigured(run) };
}

function clientFor(setup: LoomToolSetup, ctx: AuthoringContext): HostClient | undefined {
  const { config, client } = setup;
  if (!config) return client;
  const sessionId = ctx.turn?.sessionId;
  // A direct interactive session writes its receipts under a run id of its own.
  if (config.transport.kind === 'direct' && sessionId !== undefined && client === undefined) {
    return createHostClient({
      ...config,
      transport: { ...config.transport, runId: directSessionRunId(config.transport.runId, sessionId) },
    });
  }
  return client ?? createHostClient(config);
}
