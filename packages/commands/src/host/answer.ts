// Reading one answer of the host's command layer, whichever client carried it.
import type { ReceivedAnswer } from '@harness/protocol';
import { parseAnswer } from '@harness/protocol/schema';

/**
 * Reads one answer of the command layer with the protocol's reader (`parseAnswer`: another host's
 * code is kept, what an answer leaves out is filled in conservatively, the body is checked against
 * its kind). Anything that is not a well-formed answer is `undefined`: the caller cannot tell what
 * happened, so the outcome is unknown.
 */
export function readAnswer(value: unknown): ReceivedAnswer | undefined {
  const parsed = parseAnswer(value);
  return parsed.ok ? parsed.answer : undefined;
}
