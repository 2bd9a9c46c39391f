// The command layer behind a broker (or the direct transport). Each part has one job:
// admission (./command/admission.ts), argument validation (./command/arguments.ts), dispatch to the
// built-ins or the pack backend (./command/dispatch.ts) and one audit event per call
// (./command/audit.ts). This file wires them for one scope.

import type { CommandAnswer, ListResult, ManifestRow, RunRequest } from '@harness/protocol';
import { BUILTIN_ROWS } from './builtins';
import { admitCall, admittedRows, isBuiltin, jobRefusal, listRefusalMessage } from './command/admission';
import { checkArguments } from './command/arguments';
import { auditRecorder, callAuditBase, outcomeOf } from './command/audit';
import { dispatch } from './command/dispatch';
import type { PackBackend, Transport } from './command/types';
import type { ResolvedScope } from './scope';
import type { Store } from './store/types';

export type { PackBackend, PackCallContext, PackOutcome, Transport } from './command/types';

/** How long a pending or decided approval stays usable (docs/host.md, "Approvals"): one hour. */
export const APPROVAL_TTL_MS = 60 * 60 * 1000;

/** Options of {@link createCommandHost}. */
export interface CommandHostOptions {
  store: Store;
  scope: ResolvedScope;
  packs?: PackBackend;
  transport?: Transport;
  approvalTtlMs?: number;
}

/** A command host bound to one scope: what a broker serves and what direct transport runs. */
export interface CommandHost {
  readonly scope: ResolvedScope;
  /** The rows the scope admits, stamped; `forbidden` when a required job id does not match. */
  list(request: { jobId?: string }): ListResult | { forbidden: string };
  /** Runs one call as the scope's agent and records one audit event. */
  run(request: Omit<RunRequest, 'protocol' | 'id'>): Promise<CommandAnswer>;
}

/** Builds the command layer for one scope. */
export function createCommandHost(options: CommandHostOptions): CommandHost {
  const { store, scope, packs } = options;
  const transport = options.transport ?? 'broker';
  const approvalTtlMs = options.approvalTtlMs ?? APPROVAL_TTL_MS;
  const audit = auditRecorder(store, scope);
  const packRows = (): Map<string, ManifestRow> => new Map((packs?.rows() ?? []).map((r) => [r.id, r]));

  return {
    scope,
    list(request) {
      const job = jobRefusal(scope, request.jobId);
      const commands = job ? [] : admittedRows(scope, transport, packRows());
      audit(
        {
          command: '*',
          action: 'loom:list',
          phase: 'list',
          outcome: job ? 'refused' : 'listed',
          code: job ? 'forbidden' : 'ok',
          reason: job ?? null,
          payload: job ? {} : { count: commands.length },
        },
        request.jobId,
      );
      return job ? { forbidden: listRefusalMessage(scope, job) } : { commands };
    },

    async run(request) {
      const id = request.command;
      const row = isBuiltin(id) ? BUILTIN_ROWS[id] : packRows().get(id);
      const base = callAuditBase(id, row, packs, request.args, transport);
      const done = (answer: CommandAnswer, extra: Record<string, unknown> = {}): CommandAnswer => {
        audit(
          {
            command: id,
            action: base.action,
            phase: 'run',
            outcome: outcomeOf(answer),
            code: answer.code,
            reason: answer.reason ?? null,
            payload: { ...base.payload, ...extra, ...(request.readOnly ? { read_only: true } : {}) },
          },
          request.jobId,
        );
        return answer;
      };
      const admitted = admitCall(scope, transport, request, row);
      if ('refused' in admitted) return done(admitted.refused);
      const checked = checkArguments(admitted.row, request);
      if ('refused' in checked) return done(checked.refused);
      const out = await dispatch({ store, scope, packs, approvalTtlMs }, id, admitted.row, checked);
      return done(out.answer, out.audit);
    },
  };
}
