// Keeping every answer line under the answer cap (docs/protocol.md, "Limits").

import type { EnvelopeErrorCode } from './codes';
import { encodeLine, exceedsBytes } from './framing';
import { MAX_ANSWER_LINE_BYTES } from './limits';
import type { BrokerAnswer, CommandAnswer } from './types';
import { BROKER_PROTOCOL } from './version';

/** The `reason` of a run answer replaced because its line would pass the answer cap. */
export const ANSWER_TOO_LARGE = 'answer_too_large';

/**
 * What a run answer becomes when its line would pass {@link MAX_ANSWER_LINE_BYTES}: a `failed`
 * answer with reason `answer_too_large` that keeps what the caller needs to judge it — whether it
 * may have landed, the operations committed, the label — and drops the body. Nothing in it depends
 * on the body's content beyond the fact that it was too large.
 */
export function answerTooLarge(answer: CommandAnswer): CommandAnswer {
  return {
    ok: false,
    id: answer.id,
    code: 'failed',
    reason: ANSWER_TOO_LARGE,
    mayHaveLanded: answer.mayHaveLanded,
    completed: answer.completed,
    kind: 'failed',
    body: {
      message: `the answer is over the protocol's ${MAX_ANSWER_LINE_BYTES}-byte answer limit, so it was not sent (the command did run). Lower the command's max_output, or make it print less.`,
    },
    ...(answer.ifc === undefined ? {} : { ifc: answer.ifc }),
  };
}

/** An answer line carrying an envelope error: the request itself could not be handled. */
export function envelopeAnswer(id: string, code: EnvelopeErrorCode, message: string): BrokerAnswer {
  return { protocol: BROKER_PROTOCOL, id, ok: false, error: { code, message } };
}

/**
 * The line of one answer, never over {@link MAX_ANSWER_LINE_BYTES}, so one oversized answer fails
 * only its own call: a run answer becomes a failed answer with reason `answer_too_large` (keeping
 * `mayHaveLanded`, `completed` and the label), any other an `answer_too_large` envelope error.
 */
export function answerLine(answer: BrokerAnswer): string {
  const line = encodeLine(answer);
  // The cap excludes the newline.
  if (!exceedsBytes(line, MAX_ANSWER_LINE_BYTES + 1)) return line;
  if (answer.ok && 'mayHaveLanded' in answer.result)
    return encodeLine({ ...answer, result: answerTooLarge(answer.result) });
  return encodeLine(
    envelopeAnswer(
      answer.id,
      'answer_too_large',
      `the answer is over the ${MAX_ANSWER_LINE_BYTES}-byte answer limit`,
    ),
  );
}
