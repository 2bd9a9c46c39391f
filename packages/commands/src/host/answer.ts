// Reading one answer of the host's command layer, whichever client carried it.
import { isRecord, isStringArray } from '../json';
import type { HostAnswer } from './types';

/**
 * Reads one answer of the command layer. Anything that is not a well-formed answer is
 * `undefined`: the caller cannot tell what happened, so the outcome is unknown.
 */
export function readAnswer(value: unknown): HostAnswer | undefined {
  if (!isRecord(value)) return undefined;
  const { ok, id, code, reason, mayHaveLanded, completed, body } = value;
  if (typeof ok !== 'boolean' || typeof id !== 'string' || typeof code !== 'string') return undefined;
  if (mayHaveLanded !== undefined && typeof mayHaveLanded !== 'boolean') return undefined;
  if (completed !== undefined && !isStringArray(completed)) return undefined;
  const answer: HostAnswer = {
    ok,
    id,
    code,
    // An answer that does not say is assumed to have landed: the conservative reading.
    mayHaveLanded: mayHaveLanded ?? true,
    completed: completed ?? [],
    body: body ?? null,
    hasLabel: 'ifc' in value,
  };
  if (typeof reason === 'string') answer.reason = reason;
  if ('ifc' in value) answer.ifc = value.ifc;
  return answer;
}
