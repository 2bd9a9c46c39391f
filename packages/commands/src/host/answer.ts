// Reading one answer of the host's command layer, whichever client carried it.
import { parseAnswer } from '@harness/protocol/schema';
import type { HostAnswer } from './types';

/**
 * Reads one answer of the command layer with the protocol's reader (`parseAnswer`: another host's
 * code is kept, what an answer leaves out is filled in conservatively). Anything that is not a
 * well-formed answer is `undefined`: the caller cannot tell what happened, so the outcome is unknown.
 */
export function readAnswer(value: unknown): HostAnswer | undefined {
  const parsed = parseAnswer(value);
  if (!parsed.ok) return undefined;
  const { ok, id, code, reason, mayHaveLanded, completed, body } = parsed.answer;
  const hasLabel = 'ifc' in parsed.answer;
  const answer: HostAnswer = { ok, id, code, mayHaveLanded, completed, body, hasLabel };
  if (reason !== undefined) answer.reason = reason;
  if (hasLabel) answer.ifc = parsed.answer.ifc;
  return answer;
}
