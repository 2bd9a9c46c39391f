import type { CommandAnswer } from './types';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads one answer of the command layer. Anything that is not a well-formed answer is
 * `undefined`: the caller cannot tell what happened, so the outcome is unknown.
 */
export function readAnswer(value: unknown): CommandAnswer | undefined {
  if (!isRecord(value)) return undefined;
  const { ok, id, code, reason, mayHaveLanded, completed, body } = value;
  if (typeof ok !== 'boolean' || typeof id !== 'string' || typeof code !== 'string') return undefined;
  if (mayHaveLanded !== undefined && typeof mayHaveLanded !== 'boolean') return undefined;
  if (
    completed !== undefined &&
    !(Array.isArray(completed) && completed.every((c) => typeof c === 'string'))
  ) {
    return undefined;
  }
  const answer: CommandAnswer = {
    ok,
    id,
    code,
    // An answer that does not say is assumed to have landed: the conservative reading.
    mayHaveLanded: mayHaveLanded ?? true,
    completed: (completed as string[] | undefined) ?? [],
    body: body ?? null,
    hasLabel: 'ifc' in value,
  };
  if (typeof reason === 'string') answer.reason = reason;
  if ('ifc' in value) answer.ifc = value.ifc;
  return answer;
}

/** Parses one JSON text, `undefined` when it is not JSON. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
