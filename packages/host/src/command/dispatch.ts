// Dispatch: one admitted, validated call to a built-in or to the pack backend.

import type { CommandAnswer, ManifestRow } from '@harness/protocol';
import { type AuditEventInput, StoreError, StoreErrorCode } from '@harness/store';
import { type BuiltinContext, runBuiltin } from '../builtins';
import type { ResolvedScope } from '../scope';
import { isBuiltin } from './admission';
import { failedAnswer } from './answers';
import type { CheckedArgs } from './arguments';
import type { PackBackend, PackCallContext, PackOutcome } from './types';

/**
 * Everything dispatch needs besides the call: what a pack command's backend is handed as it is
 * (the caller, the store, the start record, the cancel signal, …), the scope a built-in acts in,
 * the backend, and the call's `run` event.
 */
export interface DispatchContext extends PackCallContext {
  scope: ResolvedScope;
  packs: PackBackend | undefined;
  /** The call's `run` event for an answer and the dispatch's audit detail. */
  eventOf: (answer: CommandAnswer, detail: Record<string, unknown>) => AuditEventInput;
}

function builtinAudit(
  id: string,
  args: Record<string, unknown>,
  answer: CommandAnswer,
): Record<string, unknown> {
  if (id === 'loom.compose') {
    const loomId = answer.kind === 'composed' ? answer.body.receipt.loom_id : args.loom_id;
    return { request_id: args.request_id, loom_id: loomId ?? null };
  }
  return typeof args.loom_id === 'string' ? { loom_id: args.loom_id } : {};
}

/**
 * Runs one call. A throw becomes an `internal` answer: for a built-in nothing landed (its store
 * transaction rolled back) unless the store says the outcome is unknown; for a pack command a
 * process may have run.
 */
export async function dispatch(
  ctx: DispatchContext,
  id: string,
  row: ManifestRow,
  checked: CheckedArgs,
): Promise<PackOutcome> {
  const { scope, store } = ctx;
  const builtin = isBuiltin(id);
  let out: PackOutcome;
  try {
    if (builtin) {
      const attribution: BuiltinContext = {
        actor: scope.actor,
        run: scope.run,
        namespace: `${scope.run}/${scope.actor}`,
        composeAudit: (answer) => ctx.eventOf(answer, builtinAudit(id, checked.args, answer)),
      };
      const answer = await runBuiltin(
        store,
        { command: id, args: checked.args, loomIdImplicit: checked.loomIdImplicit },
        attribution,
      );
      out = {
        answer,
        audit: builtinAudit(id, checked.args, answer),
        ...(id === 'loom.compose' ? { audited: true } : {}),
      };
    } else {
      out = await ctx.packs!.run(id, checked.args, ctx);
    }
  } catch (error) {
    // A store write whose COMMIT answer was lost may have landed (a compose is retried with its
    // request id first, so this is what is left when that retry could not settle it either).
    const unknown = error instanceof StoreError && error.code === StoreErrorCode.store_outcome_unknown;
    const message = `the host failed while running ${id}: ${(error as Error).message}`;
    out = { answer: failedAnswer(id, message, !builtin || unknown), audit: {} };
  }
  if (row.ifc !== undefined && out.answer.ifc === undefined)
    out = { ...out, answer: { ...out.answer, ifc: row.ifc } };
  return out;
}
