// Pack commands through @harness/packs: workspace, grants, governance, approvals, runner, audit.
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSpawner } from '@harness/exec';
import {
  auditEvent,
  type CredentialSource,
  credentialsFrom,
  formatIssue,
  listCommands,
  loadWorkspace,
  type PackRunOutcome,
  PacksErrorCode,
  previewPackCall,
  resolveGrants,
  runPackCommand,
  type Workspace,
} from '@harness/packs';
import type { CommandAnswer, ManifestRow } from '@harness/protocol';
import { decideWithApprovals } from './approval-gate';
import { BUILTIN_IDS } from './builtins';
import { HostError, HostErrorCode } from './errors';
import type { PackBackend, PackOutcome } from './host';
import { knownInstances, recordInstance } from './instance-registry';
import { openRunningLog, type RunningTrack } from './running';
import type { ScopeWorkspace } from './scope';

/**
 * The optional credentials file of an instance: `{ "<name>": "<value>" }`. It must be mode 0600 (or
 * stricter): a file that its group or others may read or write is refused, as ssh refuses such keys.
 */
export const CREDENTIALS_FILE = 'credentials.json';

/** Reads an instance's credentials file; refuses one its group or others may read or write. */
export function readCredentials(instanceDir: string | undefined): CredentialSource | undefined {
  if (instanceDir === undefined) return undefined;
  const file = join(instanceDir, CREDENTIALS_FILE);
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted at the path must not hang the broker's start.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HostError(
      HostErrorCode.instance_invalid,
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}`,
      { cause: error },
    );
  }
  let text: string;
  try {
    // The mode is checked on the open descriptor, so the file read is the file checked.
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw new HostError(
        HostErrorCode.instance_invalid,
        `${file} is not a regular file; remove it or replace it with one`,
      );
    }
    const mode = st.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new HostError(
        HostErrorCode.instance_invalid,
        `${file} has mode ${mode.toString(8).padStart(4, '0')}: its group or other users may read or write it, so its credentials are not loaded. Expected mode 0600; fix with: chmod 600 ${file}`,
      );
    }
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch {
    // Never echo the file: it holds secrets.
    throw new HostError(
      HostErrorCode.instance_invalid,
      `${file} is not a JSON object of credential names to values`,
    );
  }
  if (
    values === null ||
    typeof values !== 'object' ||
    Array.isArray(values) ||
    !Object.values(values).every((v) => typeof v === 'string')
  ) {
    throw new HostError(HostErrorCode.instance_invalid, `${file} must map credential names to string values`);
  }
  return credentialsFrom(values as Record<string, string>);
}

/** The answer of a call cancelled before its process was started: nothing ran. */
function cancelledBeforeStart(id: string): CommandAnswer {
  return {
    ok: false,
    id,
    code: 'failed',
    reason: 'cancelled',
    mayHaveLanded: false,
    completed: [],
    body: { status: 'cancelled', message: `${id} was cancelled before it started; nothing ran` },
  };
}

/** Loads a workspace file through @harness/packs and adapts it for the host. */
export async function loadPackBackend(
  workspaceFile: string,
  instanceDir?: string,
): Promise<{ workspace: Workspace; backend: PackBackend; scopeWorkspace: ScopeWorkspace }> {
  const credentials = readCredentials(instanceDir);
  // Every instance of this user is hidden from confined commands, this one first.
  const hide = instanceDir === undefined ? knownInstances() : recordInstance(instanceDir);
  const loaded = await loadWorkspace(
    { file: workspaceFile },
    { reservedCommandIds: [...BUILTIN_IDS], hide, ...(credentials ? { credentials } : {}) },
  );
  if (!loaded.ok) {
    throw new HostError(
      HostErrorCode.workspace_invalid,
      `the workspace ${workspaceFile} does not load:\n${loaded.issues.map(formatIssue).join('\n')}`,
    );
  }
  const workspace = loaded.workspace;
  const rows: ManifestRow[] = listCommands(workspace).map((r) => ({
    id: r.id,
    title: r.title,
    help: r.help,
    inputs: r.inputs,
    outputs: [],
    effect: r.effect,
    scope: 'global',
    timeoutMs: r.timeoutMs,
    ...(r.ifc ? { ifc: r.ifc as ManifestRow['ifc'] & object } : {}),
  }));
  for (const row of rows) {
    if (row.outputs?.length === 0) delete row.outputs;
  }
  const byId = new Map(rows.map((r) => [r.id, r]));
  const running = instanceDir ? openRunningLog(instanceDir) : undefined;
  // A broker's backend (one with an instance) starts its commands through a spawner, so the broker
  // itself never forks (docs/host.md, "Running pack commands").
  const spawner = instanceDir ? createSpawner() : undefined;

  // The sessions of the commands running now, which their broker must not serve.
  const sessions = new Set<number>();
  const backend: PackBackend = {
    rows: () => rows,
    runningSessions: () => sessions,
    async close() {
      running?.close();
      await spawner?.close();
    },
    action(id) {
      return auditEvent(workspace, id)?.action ?? `command:call:${id.replace('.', ':')}`;
    },
    auditPayload(id) {
      const payload = auditEvent(workspace, id)?.payload;
      return payload ? { ...payload } : { provider: 'command', member: id };
    },
    async run(id, args, ctx): Promise<PackOutcome> {
      const decision = await decideWithApprovals(
        workspace,
        { commandId: id, caller: ctx.agent, args },
        ctx,
        () => {
          const shown = previewPackCall(workspace, id, args, credentials ? { credentials } : {});
          return { args: { ...shown.args }, argv: shown.argv === null ? null : [...shown.argv] };
        },
      );
      const base = { id, completed: [] as string[] };
      // Who decided the approval a call consumed (`person:…` from `loom approvals`, a console,
      // `elicitation:…` from an MCP client), so the audit row names how the call was allowed.
      const approvedBy =
        decision.outcome === 'allow' && decision.approvalId !== undefined
          ? ((await ctx.store.getApproval(decision.approvalId))?.decided_by ?? undefined)
          : undefined;
      const auditOf = (outcome?: PackRunOutcome) =>
        ({
          ...(auditEvent(workspace, id, {
            agent: ctx.actor,
            decision,
            ...(outcome ? { outcome } : {}),
            ...(credentials ? { credentials } : {}),
          })?.payload ?? {}),
          ...(approvedBy === undefined ? {} : { approved_by: approvedBy }),
        }) as Record<string, unknown>;
      if (decision.outcome === 'deny') {
        const answer: CommandAnswer = {
          ...base,
          ok: false,
          code: 'refused',
          reason: decision.code,
          mayHaveLanded: false,
          body: { message: decision.reason },
        };
        return { answer, audit: auditOf() };
      }
      if (decision.outcome === 'approval_required') {
        const record = decision.approvalId ? await ctx.store.getApproval(decision.approvalId) : undefined;
        const denied = record?.status === 'denied';
        const answer: CommandAnswer = {
          ...base,
          ok: false,
          code: 'refused',
          reason: denied ? 'approval_denied' : 'approval_required',
          mayHaveLanded: false,
          body: {
            message: denied
              ? `${decision.action}: a person denied this exact call (approval ${record?.id}); offer it to the person rather than retrying`
              : `${decision.reason}; a person must approve it (loom approvals approve ${decision.approvalId}), then the identical call runs once`,
            approval_id: decision.approvalId ?? null,
            expires_at: record?.expires_at ?? null,
          },
        };
        return { answer, audit: auditOf() };
      }
      let release: (() => void) | undefined;
      const cancelled = (): PackOutcome => ({
        answer: cancelledBeforeStart(id),
        audit: { ...auditOf(), refused_before_run: 'cancelled' },
        release,
      });
      // Cancelled while it waited or was decided: no start row, nothing started.
      if (ctx.signal?.aborted) return cancelled();
      // From before the process starts until the host has recorded the call's end, the call is on
      // record in the instance, so a broker killed with SIGKILL (no exit hook, no timeout) leaves
      // nothing the next broker cannot reap and audit (docs/host.md, "Audit").
      let track: RunningTrack | undefined;
      try {
        if (running) {
          track = running.record({
            callId: ctx.callId,
            commandId: id,
            run: ctx.run,
            actor: ctx.actor,
          });
        }
        await ctx.recordStart();
      } catch (error) {
        track?.release();
        const answer: CommandAnswer = {
          ...base,
          ok: false,
          code: 'failed',
          reason: 'not_recorded',
          mayHaveLanded: false,
          body: { message: `${id} was not started: ${(error as Error).message}` },
        };
        return { answer, audit: { ...auditOf(), refused_before_run: 'not_recorded' } };
      }
      release = track ? () => track.release() : undefined;
      // Cancelled while its start was recorded: nothing is started.
      if (ctx.signal?.aborted) return cancelled();
      // A throw from the runner leaves the record: the next broker start turns it into an event.
      let session: number | undefined;
      const result = await runPackCommand(workspace, id, args, {
        ...(credentials ? { credentials } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.onOutputBytes ? { onOutputBytes: ctx.onOutputBytes } : {}),
        onSpawn: (info: { pid: number; pgid: number }) => {
          // Started detached: its own session, whose id is its pid.
          session = info.pgid;
          sessions.add(session);
          track?.spawned(info);
        },
        ...(spawner ? { spawner } : {}),
      }).finally(() => {
        if (session !== undefined) sessions.delete(session);
      });
      if (!result.ok) {
        // The signal aborted just before the spawn: the runner refused to start it.
        if (ctx.signal?.aborted) return cancelled();
        // Nothing ran: the runner refused before spawning (arguments, render, credential, executable).
        const first = result.issues[0];
        const code = first?.code;
        const answer: CommandAnswer =
          code === PacksErrorCode.invalid_args
            ? {
                ...base,
                ok: false,
                code: 'bad-args',
                mayHaveLanded: false,
                body: {
                  message: `the arguments do not fit ${id}`,
                  errors: result.issues.map((i) => ({ path: `/${i.path.join('/')}`, message: i.message })),
                },
              }
            : {
                ...base,
                ok: false,
                code: code === PacksErrorCode.render_refused ? 'refused' : 'failed',
                reason: code ?? 'failed',
                mayHaveLanded: false,
                body: { message: result.issues.map((i) => i.message).join('; ') },
              };
        return { answer, audit: { ...auditOf(), refused_before_run: code ?? 'unknown' }, release };
      }
      const outcome = result.outcome;
      const ok = outcome.status === 'ok';
      const body = ok
        ? {
            status: outcome.status,
            output: outcome.output,
            stderr: outcome.stderr,
            exitCode: outcome.exitCode,
            durationMs: outcome.durationMs,
          }
        : {
            status: outcome.status,
            message: outcome.message,
            exitCode: outcome.exitCode,
            signal: outcome.signal,
            stdout: outcome.stdout,
            stderr: outcome.stderr,
            timedOut: outcome.timedOut,
            outputExceeded: outcome.outputExceeded,
            durationMs: outcome.durationMs,
            ...(outcome.parseError === undefined ? {} : { parseError: outcome.parseError }),
          };
      const answer: CommandAnswer = {
        ...base,
        ok,
        code: ok ? 'ok' : 'failed',
        ...(ok ? {} : { reason: outcome.status }),
        // A process ran: only a declared read is sure to have changed nothing.
        mayHaveLanded: byId.get(id)?.effect !== 'read',
        body,
      };
      return { answer, audit: auditOf(outcome), release };
    },
  };

  const scopeWorkspace: ScopeWorkspace = {
    agentCommands: (agent) => workspace.agents.find((a) => a.id === agent)?.commands,
    agentIds: () => workspace.agents.map((a) => a.id),
    resolveGrants(grants) {
      const r = resolveGrants(workspace, grants);
      return r.ok
        ? { ok: true, commands: r.commands }
        : { ok: false, message: r.issues.map((i) => i.message).join('; ') };
    },
    effectOf: (id) => byId.get(id)?.effect,
  };
  return { workspace, backend, scopeWorkspace };
}
