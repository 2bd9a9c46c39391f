// The audit of the command layer: one event per listing, a call's events (docs/host.md, "Audit"),
// never an argument value.
import type { CommandAnswer, ManifestRow } from '@harness/protocol';
import type { AuditEventInput, Store } from '@harness/store';
import type { ResolvedScope } from '../scope';
import { isBuiltin } from './admission';
import type { PackBackend, Transport } from './types';

/** The audit outcome of an answer: a call its caller cancelled is `cancelled`, not `failed`. */
export const outcomeOf = (a: CommandAnswer): string => {
  if (a.ok) return 'ok';
  switch (a.code) {
    case 'forbidden':
    case 'refused':
      return 'refused';
    case 'failed':
      return a.reason === 'cancelled' ? 'cancelled' : 'failed';
    case 'internal':
      return 'error';
    default:
      return 'rejected';
  }
};

/** Names of an object's top-level keys: what the audit keeps of arguments (never their values). */
const argNames = (args: unknown): string[] =>
  args !== null && typeof args === 'object' && !Array.isArray(args) ? Object.keys(args).sort() : [];

/** Records one event as the scope's run and actor; a store failure is reported, never thrown. */
export type AuditRecorder = (
  event: Omit<AuditEventInput, 'run' | 'actor' | 'job'>,
  jobId: string | undefined,
) => Promise<void>;

/** Appends one event; a store failure is reported on stderr, never thrown. */
export async function recordEvent(store: Store, event: AuditEventInput): Promise<void> {
  try {
    await store.appendAudit(event);
  } catch (error) {
    // The answer still goes out; the operator sees why the record is missing.
    process.stderr.write(`loom: could not record an audit event: ${(error as Error).message}\n`);
  }
}

/** The recorder of one scope's events. */
export function auditRecorder(store: Store, scope: ResolvedScope): AuditRecorder {
  return (event, jobId) =>
    recordEvent(store, { ...event, run: scope.run, actor: scope.actor, job: jobId ?? null });
}

/** The action label and the base payload of one call's event. */
export function callAuditBase(
  id: string,
  row: ManifestRow | undefined,
  packs: PackBackend | undefined,
  args: unknown,
  transport: Transport,
): { action: string; payload: Record<string, unknown> } {
  const member = id.slice('loom.'.length);
  if (isBuiltin(id)) {
    return {
      action: `loom:call:${member}`,
      payload: {
        provider: 'loom',
        container: 'loom',
        member,
        effects: row?.effect ?? 'write',
        arg_names: argNames(args),
        transport,
      },
    };
  }
  const known = row !== undefined && packs !== undefined;
  return {
    action: known ? packs.action(id) : `unknown:call:${id}`,
    payload: {
      ...(known ? packs.auditPayload(id) : { provider: 'unknown', member: id }),
      arg_names: argNames(args),
      transport,
    },
  };
}
