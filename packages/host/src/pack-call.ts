// One call of a pack command through the backend: the governance decision (with the host's
// approvals, and the wait for a person's decision where the command has one), then, when it is
// allowed, the start on record, the run through @harness/packs and the answer built from its outcome.
import { approveCommand } from '@harness/config/instance';
import type { ResolvedProgram, Spawner } from '@harness/exec';
import {
  type CredentialSource,
  getCommand,
  type PackRunOutcome,
  PacksErrorCode,
  type PacksIssue,
  previewPackCall,
  runCommandPreview,
  runPackCommand,
} from '@harness/packs';
import type { AnswerApproval, ManifestRow } from '@harness/protocol';
import type { ApprovalPreviewOutput, ApprovalRecord } from '@harness/store';
import { auditEvent, type Decision, type Workspace } from '@harness/workspace';
// The approvals module's parts, not its index: the index also exports the API that opens an instance.
import { type ApprovalPreview, planHash } from './approvals/preview';
import { decideWithApprovals } from './approvals/request';
import { type WaitOutcome, waitForPerson } from './approvals/wait';
import { cancelledAnswer, heldAnswer, ranAnswer, refusedAnswer } from './command/answers';
import type { PackCallContext, PackOutcome } from './host';
import type { RunningLog, RunningTrack } from './running';
import type { StartingSpawns } from './starting-spawns';

/** What every call of one pack backend shares. */
export interface PackBackendState {
  readonly workspace: Workspace;
  readonly credentials: CredentialSource | undefined;
  /** The manifest rows by command id. */
  readonly byId: ReadonlyMap<string, ManifestRow>;
  /** Where calls are recorded before their process starts (a broker's backend, with an instance). */
  readonly running: RunningLog | undefined;
  readonly spawner: Spawner | undefined;
  /** The sessions of the commands running now, which their broker must not serve. */
  readonly sessions: Set<number>;
  /** The commands being started whose session is not on `sessions` yet (a connection waits for none). */
  readonly starting: StartingSpawns;
  /** The instance the backend serves (none for one loaded without): the approval hint names it. */
  readonly instanceDir: string | undefined;
}

/**
 * ` (harness approvals approve <id> …)`: the command a person runs to approve, exactly as a shell in
 * this process's environment reads it (`--instance <dir>` unless the instance is the default one).
 */
const approveHint = (id: string | undefined, instanceDir: string | undefined): string =>
  id === undefined ? '' : ` (${approveCommand(id, instanceDir).line})`;

/** Runs one validated call: governance, approvals (waiting for a person where asked), the runner. */
export async function runPackCall(
  backend: PackBackendState,
  id: string,
  args: Record<string, unknown>,
  ctx: PackCallContext,
): Promise<PackOutcome> {
  // The plan last computed for this call (an approval taken is checked against it): the program it
  // resolved and hashed is the program that starts, so nothing is looked up twice.
  let planned: PlannedCall | undefined;
  const decideCall = () =>
    decideWithApprovals(
      backend.workspace,
      { commandId: id, caller: ctx.agent, args },
      ctx,
      () => {
        planned = approvalPreview(backend, id, args);
        return planned;
      },
      () => commandPreview(backend, id, args),
    );
  const { decision, wait } = await waitIfAsked(backend, id, await decideCall(), decideCall, ctx);
  // The approval a call consumed (or found for another plan), so its audit row names it, the plan
  // it approved and who decided it (`person:…` from `loom approvals`, a console, `elicitation:…`
  // from an MCP client).
  const consumed =
    decision.approvalId !== undefined && (decision.outcome === 'allow' || decision.code === 'plan_changed')
      ? await ctx.store.getApproval(decision.approvalId)
      : undefined;
  const call = new PackCall(backend, id, args, ctx, decision, consumed, wait, planned?.program);
  if (decision.outcome === 'deny') return call.denied();
  if (wait?.end === 'cancelled') return await call.cancelledWaiting();
  if (decision.outcome === 'approval_required') return call.awaitingApproval();
  return call.start();
}

/**
 * The decision to act on: a call held for approval of a command with an `approval_wait` first waits
 * for a person's decision (./approval-wait.ts); any other decision is acted on at once.
 */
async function waitIfAsked(
  backend: PackBackendState,
  id: string,
  decision: Decision,
  redecide: () => Promise<Decision>,
  ctx: PackCallContext,
): Promise<{ decision: Decision; wait?: WaitOutcome }> {
  const waitMs = getCommand(backend.workspace, id)?.approvalWaitMs ?? 0;
  if (decision.outcome !== 'approval_required' || decision.approvalId === undefined || waitMs <= 0)
    return { decision };
  const wait = await waitForPerson(decision, {
    store: ctx.store,
    waitMs,
    redecide,
    instanceDir: backend.instanceDir,
    signal: ctx.signal,
    ended: ctx.waitsEnded,
    tell: ctx.onApprovalWait,
  });
  return { decision: wait.decision, wait };
}

/** A call's plan as the gate judged it, with the program it resolved (`null`: none). */
type PlannedCall = ApprovalPreview & { readonly program: ResolvedProgram | null };

/** What a new approval request shows a person: the call's values and argv, credentials replaced. */
function approvalPreview(backend: PackBackendState, id: string, args: Record<string, unknown>): PlannedCall {
  const { workspace, credentials } = backend;
  const shown = previewPackCall(workspace, id, args, credentials ? { credentials } : {});
  return {
    args: { ...shown.args },
    display: shown.display,
    argv: shown.argv === null ? null : [...shown.argv],
    planHash: shown.plan === null ? null : planHash(shown.plan),
    ...(shown.plan === null
      ? {}
      : {
          plan: {
            executable: shown.plan.executable,
            executable_sha256: shown.plan.executableSha256,
            cwd_real: shown.plan.cwdReal,
            inputs: shown.plan.inputs.map((i) => ({ path: i.path, sha256: i.sha256 })),
          },
        }),
    program: shown.program,
  };
}

/**
 * What the command's `preview` shows the person (a read command of its pack, run confined, its
 * output cut), or `null` when it declares none; a preview that fails says so in its text.
 */
function commandPreview(
  backend: PackBackendState,
  id: string,
  args: Record<string, unknown>,
): Promise<ApprovalPreviewOutput | null> {
  const { workspace, credentials, spawner } = backend;
  return runCommandPreview(workspace, id, args, {
    ...(credentials ? { credentials } : {}),
    ...(spawner ? { spawner } : {}),
  }).then((r) => (r === null ? null : { ...r }));
}

/** A wait as the answer words it: `1.0s`. */
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** The answer of a call cancelled before its process was started: nothing ran. */
const cancelledBeforeStart = (id: string) =>
  cancelledAnswer(id, `${id} was cancelled before it started; nothing ran`);

/** The approval an answer names: its id, and its expiry and plan as its record says them. */
function approvalOf(id: string | undefined, record: ApprovalRecord | undefined): AnswerApproval | undefined {
  if (id === undefined) return undefined;
  return { id, expires_at: record?.expires_at ?? null, plan_hash: record?.plan_hash ?? null };
}

/**
 * One decided call and the outcome each of its ends reports. What its steps share: the decision,
 * who approved it, and, once its start is on record, the function that removes that record.
 */
class PackCall {
  readonly #backend: PackBackendState;
  readonly #id: string;
  readonly #args: Record<string, unknown>;
  readonly #ctx: PackCallContext;
  readonly #decision: Decision;
  readonly #consumed: ApprovalRecord | undefined;
  readonly #wait: WaitOutcome | undefined;
  /** The program the call's plan hashed; `null`: it resolved to none; `undefined`: no plan was made. */
  readonly #program: ResolvedProgram | null | undefined;
  #release: (() => void) | undefined;

  constructor(
    backend: PackBackendState,
    id: string,
    args: Record<string, unknown>,
    ctx: PackCallContext,
    decision: Decision,
    consumed: ApprovalRecord | undefined,
    wait: WaitOutcome | undefined,
    program: ResolvedProgram | null | undefined,
  ) {
    this.#backend = backend;
    this.#program = program;
    this.#id = id;
    this.#args = args;
    this.#ctx = ctx;
    this.#decision = decision;
    this.#consumed = consumed;
    this.#wait = wait;
  }

  /** Refused by the gate: nothing ran. */
  denied(): PackOutcome {
    const answer = refusedAnswer(this.#id, 'refused', this.#decision.code, this.#decision.reason);
    return { answer, audit: this.#audit() };
  }

  /** Waiting for a person's approval, or denied by one, or by nobody (it expired): nothing ran. */
  async awaitingApproval(): Promise<PackOutcome> {
    const decision = this.#decision;
    const record = decision.approvalId ? await this.#ctx.store.getApproval(decision.approvalId) : undefined;
    const denied = record?.status === 'denied';
    // Deny by default: a request nobody decided before its expiry refuses the call it holds.
    const expired =
      record?.status === 'expired' ||
      (record?.status === 'pending' && Date.parse(record.expires_at) <= Date.now());
    const message = denied
      ? `${this.#id}: this exact call was denied by ${record?.decided_by ?? 'a person'} (approval ${record?.id}); offer it to the person rather than retrying`
      : expired
        ? `${this.#id}: approval ${record?.id} expired at ${record?.expires_at} with no decision, so this call is refused and nothing ran; tell the person, and make the identical call again only if they want it asked anew`
        : // The code says why it is held; this says what unblocks it, in few words: a model reads it.
          this.#stillHeld();
    const reason = denied ? 'approval_denied' : expired ? 'approval_expired' : 'approval_required';
    const answer = heldAnswer(this.#id, reason, message, approvalOf(decision.approvalId, record));
    return { answer, audit: this.#audit() };
  }

  /** What a held call's answer says of its approval: how to approve it, and how its wait ended. */
  #stillHeld(): string {
    const id = this.#decision.approvalId;
    const approve = `a person must approve it${approveHint(id, this.#backend.instanceDir)}, then the identical call runs once`;
    const wait = this.#wait;
    if (wait === undefined) return approve;
    const waited = `this call waited ${seconds(wait.waitedMs)}`;
    const why =
      wait.end === 'closing'
        ? `the host is shutting down, so ${waited}`
        : `no person decided while ${waited}`;
    return `${why}; approval ${id} stays pending: ${approve}`;
  }

  /** Cancelled by its caller while it waited for a person's decision: nothing ran, the approval stays pending. */
  async cancelledWaiting(): Promise<PackOutcome> {
    const id = this.#decision.approvalId;
    const record = id === undefined ? undefined : await this.#ctx.store.getApproval(id);
    const answer = cancelledAnswer(
      this.#id,
      `${this.#id} was cancelled while it waited for a person's decision; nothing ran, and approval ${id ?? null} stays pending`,
      approvalOf(id, record),
    );
    return { answer, audit: { ...this.#audit(), refused_before_run: 'cancelled' } };
  }

  /** Allowed: records the start, runs the command and answers with its outcome. */
  async start(): Promise<PackOutcome> {
    const ctx = this.#ctx;
    const { running } = this.#backend;
    // Cancelled while it waited or was decided: no start row, nothing started.
    if (ctx.signal?.aborted) return this.#cancelled();
    // From before the process starts until the host has recorded the call's end, the call is on
    // record in the instance, so a broker killed with SIGKILL (no exit hook, no timeout) leaves
    // nothing the next broker cannot reap and audit (docs/host.md, "Audit").
    let track: RunningTrack | undefined;
    try {
      if (running) {
        track = running.record({
          callId: ctx.callId,
          commandId: this.#id,
          run: ctx.run,
          actor: ctx.actor,
        });
      }
      await ctx.recordStart();
    } catch (error) {
      track?.release();
      return this.#notRecorded(error);
    }
    this.#release = track ? () => track.release() : undefined;
    // Cancelled while its start was recorded: nothing is started.
    if (ctx.signal?.aborted) return this.#cancelled();
    // A throw from the runner leaves the record: the next broker start turns it into an event.
    const result = await this.#runCommand(track);
    if (!result.ok) return this.#refusedBeforeRun(result.issues);
    return this.#ran(result.outcome);
  }

  /** Runs the command, its session on the backend's list from its spawn until its end. */
  #runCommand(track: RunningTrack | undefined): ReturnType<typeof runPackCommand> {
    const ctx = this.#ctx;
    const { workspace, credentials, spawner, sessions, starting } = this.#backend;
    let session: number | undefined;
    const started = starting.begin();
    return runPackCommand(workspace, this.#id, this.#args, {
      ...(credentials ? { credentials } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.onOutputBytes ? { onOutputBytes: ctx.onOutputBytes } : {}),
      onSpawn: (info: { pid: number; pgid: number }) => {
        // Started detached: its own session, whose id is its pid.
        session = info.pgid;
        sessions.add(session);
        started();
        track?.spawned(info);
      },
      ...(spawner ? { spawner } : {}),
      ...(this.#program === undefined ? {} : { program: this.#program }),
    }).finally(() => {
      started();
      if (session !== undefined) sessions.delete(session);
    });
  }

  #cancelled(): PackOutcome {
    return {
      answer: cancelledBeforeStart(this.#id),
      audit: { ...this.#audit(), refused_before_run: 'cancelled' },
      release: this.#release,
    };
  }

  /** The start could not be recorded: nothing was started. */
  #notRecorded(error: unknown): PackOutcome {
    const message = `${this.#id} was not started: ${(error as Error).message}`;
    const answer = refusedAnswer(this.#id, 'failed', 'not_recorded', message);
    return { answer, audit: { ...this.#audit(), refused_before_run: 'not_recorded' } };
  }

  /** The runner refused before spawning (arguments, render, credential, executable): nothing ran. */
  #refusedBeforeRun(issues: readonly PacksIssue[]): PackOutcome {
    // The signal aborted just before the spawn: the runner refused to start it.
    if (this.#ctx.signal?.aborted) return this.#cancelled();
    const id = this.#id;
    const first = issues[0];
    const code = first?.code;
    // The program the plan hashed was replaced between the gate and the spawn: what was approved
    // is not what would run, as when the gate itself finds another plan.
    if (code === PacksErrorCode.spawn_failed && first?.details?.reason === 'program_changed') {
      const answer = refusedAnswer(id, 'refused', 'plan_changed', issues.map((i) => i.message).join('; '));
      return {
        answer,
        audit: { ...this.#audit(), refused_before_run: 'plan_changed' },
        release: this.#release,
      };
    }
    const answer =
      code === PacksErrorCode.invalid_args
        ? refusedAnswer(
            id,
            'bad-args',
            undefined,
            `the arguments do not fit ${id}`,
            issues.map((i) => ({ path: `/${i.path.join('/')}`, message: i.message })),
          )
        : refusedAnswer(
            id,
            code === PacksErrorCode.render_refused ? 'refused' : 'failed',
            code ?? 'failed',
            issues.map((i) => i.message).join('; '),
          );
    return {
      answer,
      audit: { ...this.#audit(), refused_before_run: code ?? 'unknown' },
      release: this.#release,
    };
  }

  /** A process ran: the answer carries its output when ok, else how it ended. */
  #ran(outcome: PackRunOutcome): PackOutcome {
    const answer = ranAnswer(this.#id, outcome, {
      read: this.#backend.byId.get(this.#id)?.effect === 'read',
      unchangedExitCodes: getCommand(this.#backend.workspace, this.#id)?.unchangedExitCodes,
    });
    return { answer, audit: this.#audit(outcome), release: this.#release };
  }

  /** The audit detail of the call: its decision, its outcome when it ran, the approval it used. */
  #audit(outcome?: PackRunOutcome): Record<string, unknown> {
    const { workspace, credentials } = this.#backend;
    return {
      ...(auditEvent(workspace, this.#id, {
        agent: this.#ctx.actor,
        decision: this.#decision,
        ...(outcome ? { outcome } : {}),
        ...(credentials ? { credentials } : {}),
      })?.payload ?? {}),
      ...(this.#consumed === undefined
        ? {}
        : {
            approval: { id: this.#consumed.id, plan_hash: this.#consumed.plan_hash },
            ...(this.#consumed.decided_by === null ? {} : { approved_by: this.#consumed.decided_by }),
          }),
      ...(this.#wait === undefined
        ? {}
        : { approval_wait: { ended: this.#wait.end, waited_ms: this.#wait.waitedMs } }),
    } as Record<string, unknown>;
  }
}
