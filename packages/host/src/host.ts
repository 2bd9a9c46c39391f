// The command layer behind a broker (or the direct transport). Each part has one job:
// admission (./command/admission.ts), argument validation (./command/arguments.ts), dispatch to the
// built-ins or the pack backend (./command/dispatch.ts) and the audit events of each call
// (./command/audit.ts; docs/host.md, "Audit"). This file wires them for one scope.

import { createHash } from 'node:crypto';
import type { CommandAnswer, ListResult, ManifestRow, RunRequest } from '@harness/protocol';
import { type AuditEventInput, newId, type Store } from '@harness/store';
import { BUILTIN_ROWS } from './builtins';
import {
  admitCall,
  admittedRows,
  inScope,
  isBuiltin,
  jobRefusal,
  listRefusalMessage,
} from './command/admission';
import { checkArguments } from './command/arguments';
import { auditRecorder, callAuditBase, outcomeOf, recordEvent } from './command/audit';
import { dispatch } from './command/dispatch';
import type { PackBackend, RunControl, Transport } from './command/types';
import type { ApprovalNotices } from './notify/notifier';
import type { ResolvedScope } from './scope';

export type {
  ApprovalWaiting,
  PackBackend,
  PackCallContext,
  PackOutcome,
  RunControl,
  Transport,
} from './command/types';

/** Options of {@link createCommandHost}. */
export interface CommandHostOptions {
  store: Store;
  scope: ResolvedScope;
  packs?: PackBackend;
  transport?: Transport;
  /** How long every approval request lives, in ms, whatever its command's `approval_timeout` says. */
  approvalTtlMs?: number;
  /** Told of each approval a call asks for (a broker's notifier, docs/notify.md). */
  notices?: ApprovalNotices;
}

/** A command host bound to one scope: what a broker serves and what direct transport runs. */
export interface CommandHost {
  readonly scope: ResolvedScope;
  /**
   * The rows the scope admits, stamped; `forbidden` when a required job id does not match. With
   * `ifNoneMatch` the answer carries the listing's `etag`, and no rows (`unchanged: true`) when the
   * client already holds this listing.
   */
  list(request: { jobId?: string; ifNoneMatch?: string }): Promise<ListResult | { forbidden: string }>;
  /**
   * Runs one call as the scope's agent. Its `run` audit event is committed before the answer is
   * returned (a compose's inside the compose's transaction); a pack command that starts a process
   * also has a `start` event committed before the process starts. `control` lets the caller
   * cancel the call (a pack command's process group is killed, the answer and the audit row say
   * `cancelled`) and watch its output grow.
   */
  run(request: Omit<RunRequest, 'protocol' | 'id'>, control?: RunControl): Promise<CommandAnswer>;
  /**
   * Stops every wait for a person's decision (a pack's `approval_wait`), now and from now on: a call
   * waiting answers `approval_required` at once, its approval still pending. A broker's close calls
   * it first, so closing never waits on a person.
   */
  endWaits(): void;
}

/** What a host lists: the pack rows by id, the rows its scope admits, and that listing's etag. */
interface Listing {
  source: readonly ManifestRow[] | undefined;
  held: readonly string[] | undefined;
  byId: Map<string, ManifestRow>;
  admitted: ManifestRow[];
  /** How many tools granted to this scope are held back for a person's review (SV-18). */
  quarantined: number;
  etag: string;
}

/**
 * The scope is fixed for the host's life and the pack rows change only with a new workspace, so the
 * rows by id, the admitted listing and its etag are built once per set of pack rows, not per call.
 */
function listingCache(
  scope: ResolvedScope,
  transport: Transport,
  packs: PackBackend | undefined,
): () => Listing {
  let built: Listing | undefined;
  return () => {
    const source = packs?.rows();
    const held = packs?.quarantined?.();
    if (built === undefined || built.source !== source || built.held !== held) {
      const byId = new Map((source ?? []).map((r) => [r.id, r]));
      const admitted = admittedRows(scope, transport, byId);
      const quarantined = transport === 'broker' ? (held ?? []).filter((id) => inScope(scope, id)).length : 0;
      // The count is part of the listing: a client holding the old one reads the new count.
      const etag = createHash('sha256')
        .update(JSON.stringify([admitted, quarantined]))
        .digest('base64url')
        .slice(0, 22);
      built = { source, held, byId, admitted, quarantined, etag };
    }
    return built;
  };
}

/** Answers a `list`: the admitted rows (or `unchanged` for the etag the client holds), recorded in the audit. */
async function answerList(
  scope: CommandHostOptions['scope'],
  current: ReturnType<typeof listingCache>,
  packs: PackBackend | undefined,
  audit: ReturnType<typeof auditRecorder>,
  request: Parameters<CommandHost['list']>[0],
): ReturnType<CommandHost['list']> {
  const job = jobRefusal(scope, request.jobId);
  // MCP servers start on first need: a listing is one.
  if (!job) await packs?.ready?.();
  const listing = current();
  // A client that revalidates the listing it holds before each call (the harness does) would
  // write a listing row per call. An unchanged answer is not recorded: every run row carries
  // the etag of the listing it was admitted under (docs/host.md, "Audit").
  if (!job && request.ifNoneMatch === listing.etag)
    return { commands: [], etag: listing.etag, unchanged: true };
  const commands = job ? [] : listing.admitted;
  await audit(
    {
      command: '*',
      action: 'loom:list',
      phase: 'list',
      outcome: job ? 'refused' : 'listed',
      code: job ? 'forbidden' : 'ok',
      reason: job ?? null,
      payload: job
        ? {}
        : {
            count: listing.admitted.length,
            listing: listing.etag,
            ...(listing.quarantined > 0 ? { quarantined: listing.quarantined } : {}),
          },
    },
    request.jobId,
  );
  if (job) return { forbidden: listRefusalMessage(scope, job) };
  const held = listing.quarantined > 0 ? { quarantined: listing.quarantined } : {};
  if (request.ifNoneMatch === undefined) return { commands, ...held };
  return { commands, etag: listing.etag, ...held };
}

/** Builds the command layer for one scope. */
export function createCommandHost(options: CommandHostOptions): CommandHost {
  const { store, scope, packs } = options;
  const transport = options.transport ?? 'broker';
  const approvalTtlMs = options.approvalTtlMs;
  const audit = auditRecorder(store, scope);
  const waits = new AbortController();
  const current = listingCache(scope, transport, packs);
  const packRows = (): Map<string, ManifestRow> => current().byId;

  return {
    scope,
    list: (request) => answerList(scope, current, packs, audit, request),

    async run(request, control = {}) {
      const id = request.command;
      // A call is a first need too: a server tool's row exists once its server has listed it.
      if (!isBuiltin(id)) await packs?.ready?.(id);
      const row = isBuiltin(id) ? BUILTIN_ROWS[id] : packRows().get(id);
      const base = callAuditBase(id, row, packs, request.args, transport);
      const callId = newId('call');
      const job = request.jobId ?? null;
      const readOnly = request.readOnly ? { read_only: true } : {};
      const eventOf = (answer: CommandAnswer, extra: Record<string, unknown> = {}): AuditEventInput => ({
        run: scope.run,
        actor: scope.actor,
        job,
        command: id,
        action: base.action,
        phase: 'run',
        outcome: outcomeOf(answer),
        code: answer.code,
        reason: answer.reason ?? null,
        payload: {
          ...base.payload,
          ...extra,
          ...readOnly,
          ...(isBuiltin(id) ? {} : { call_id: callId }),
          listing: current().etag,
        },
      });
      const done = async (answer: CommandAnswer, extra?: Record<string, unknown>): Promise<CommandAnswer> => {
        await recordEvent(store, eventOf(answer, extra));
        return answer;
      };
      // Thrown, not reported: without a durable start event the process must not start.
      const recordStart = async (): Promise<void> => {
        await store.appendAudit({
          run: scope.run,
          actor: scope.actor,
          job,
          command: id,
          action: base.action,
          phase: 'start',
          outcome: 'started',
          code: 'ok',
          reason: null,
          payload: { ...base.payload, ...readOnly, call_id: callId },
        });
      };
      const admitted = admitCall(scope, transport, request, row, packs?.unknown?.(id));
      if ('refused' in admitted) return done(admitted.refused);
      const checked = checkArguments(admitted.row, request);
      if ('refused' in checked) return done(checked.refused);
      const out = await dispatch(
        {
          agent: scope.agent,
          actor: scope.actor,
          run: scope.run,
          store,
          scope,
          packs,
          approvalTtlMs,
          eventOf,
          recordStart,
          callId,
          signal: control.signal,
          onOutputBytes: control.onOutputBytes,
          onApprovalWait: control.onApprovalWait,
          waitsEnded: waits.signal,
          notices: options.notices,
          session: request.session,
        },
        id,
        admitted.row,
        checked,
      );
      if (out.audited) return out.answer;
      try {
        return await done(out.answer, out.audit);
      } finally {
        // After the end event: a broker killed before this leaves a record for the next one to reap.
        out.release?.();
      }
    },

    endWaits() {
      waits.abort();
    },
  };
}
