// Admission: which rows a scope lists, and whether one call may go on to its arguments.

import type { CommandAnswer, ManifestRow, RunRequest } from '@harness/protocol';
import { BUILTIN_IDS, BUILTIN_ROWS, type BuiltinId } from '../builtins';
import type { ResolvedScope } from '../scope';
import { refusedAnswer } from './answers';
import type { Transport, Unavailable } from './types';

export const isBuiltin = (id: string): id is BuiltinId => (BUILTIN_IDS as readonly string[]).includes(id);

/** Whether the scope admits a pack command or a server tool: granted by name, or its server whole. */
export const inScope = (scope: ResolvedScope, id: string): boolean =>
  scope.commands.has(id) ||
  (scope.servers.size > 0 && scope.servers.has(id.slice(0, Math.max(0, id.indexOf('.')))));

/** Whether the scope grants read-only execution of a row (the broker's `readOnlyGranted` stamp). */
export const readOnlyGranted = (scope: ResolvedScope, row: ManifestRow): boolean =>
  row.effect === 'read' && (scope.readOnly === 'reads' || scope.readOnly.has(row.id));

/** The rows a scope admits, stamped: its built-ins, and its pack commands over a broker. */
export function admittedRows(
  scope: ResolvedScope,
  transport: Transport,
  packRows: ReadonlyMap<string, ManifestRow>,
): ManifestRow[] {
  const rows: ManifestRow[] = [];
  for (const id of BUILTIN_IDS) if (scope.builtins.has(id)) rows.push(BUILTIN_ROWS[id]);
  if (transport === 'broker') {
    for (const [id, row] of packRows) if (inScope(scope, id)) rows.push(row);
  }
  return rows.map((row) => ({ ...row, readOnlyGranted: readOnlyGranted(scope, row) }));
}

/** Why a job id is refused (`job_required`, `job_mismatch`), or `undefined` when it is accepted. */
export function jobRefusal(scope: ResolvedScope, jobId: string | undefined): string | undefined {
  if (scope.job === undefined) return undefined;
  if (jobId === undefined) return 'job_required';
  return jobId === scope.job ? undefined : 'job_mismatch';
}

/** The message of a refused listing. */
export const listRefusalMessage = (scope: ResolvedScope, job: string): string =>
  `this broker serves job ${JSON.stringify(scope.job)}; the request ${job === 'job_required' ? 'named no job (set LOOM_COMMAND_JOB_ID)' : 'named another job'}`;

/**
 * Admits one call: the job, the transport, a known command, the scope's grant and a read-only
 * demand. Returns the row to run, or the refusal to answer with.
 */
export function admitCall(
  scope: ResolvedScope,
  transport: Transport,
  request: Pick<RunRequest, 'command' | 'jobId' | 'readOnly'>,
  row: ManifestRow | undefined,
  /** Why the row is missing, when its backend knows (an MCP server that does not start, a tool held for review). */
  missing?: Unavailable,
): { row: ManifestRow } | { refused: CommandAnswer } {
  const id = request.command;
  const builtin = isBuiltin(id);
  const job = jobRefusal(scope, request.jobId);
  if (job) {
    return {
      refused: refusedAnswer(
        id,
        'forbidden',
        job,
        `this broker serves job ${JSON.stringify(scope.job)}; the request named ${request.jobId === undefined ? 'none' : 'another'}`,
      ),
    };
  }
  if (!builtin && transport === 'direct') {
    return {
      refused: refusedAnswer(
        id,
        'forbidden',
        'direct_transport',
        `${id} is not a loom.* built-in; pack commands run only through a broker, which holds the agent's grant`,
      ),
    };
  }
  if (!row) {
    // A tool held for review is named only to an agent it is granted to (SV-09).
    if (missing?.reason === 'quarantined' && !inScope(scope, id)) missing = undefined;
    return {
      refused: refusedAnswer(
        id,
        'unknown_command',
        missing?.reason ?? 'unknown_command',
        missing?.message ??
          `no command has the id ${JSON.stringify(id)}; list the commands with \`loom command list --json\``,
      ),
    };
  }
  const admitted = builtin ? scope.builtins.has(id) : inScope(scope, id);
  if (!admitted) {
    return {
      refused: refusedAnswer(
        id,
        'forbidden',
        'not_in_scope',
        `${id} is not granted to agent "${scope.agent}" in this broker's scope`,
      ),
    };
  }
  if (request.readOnly) {
    if (row.effect !== 'read') {
      return {
        refused: refusedAnswer(
          id,
          'forbidden',
          'not_read',
          `--read-only was asked, but ${id}'s current effect is ${row.effect ?? 'undeclared (a write)'}`,
        ),
      };
    }
    if (!readOnlyGranted(scope, row)) {
      return {
        refused: refusedAnswer(
          id,
          'forbidden',
          'readonly_not_granted',
          `this scope does not grant read-only execution of ${id}`,
        ),
      };
    }
  }
  return { row };
}
