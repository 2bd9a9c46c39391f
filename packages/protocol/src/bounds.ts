// Keeping every answer line under the answer cap (docs/protocol.md, "Limits").

import { MAX_ANSWER_LINE_BYTES } from './limits';
import type { CommandAnswer } from './types';

/** The `reason` of a run answer replaced because its line would pass the answer cap. */
export const ANSWER_TOO_LARGE = 'answer_too_large';

/**
 * What a run answer becomes when its line would pass {@link MAX_ANSWER_LINE_BYTES}: a failed answer
 * with reason `answer_too_large` that keeps what the caller needs to judge it — whether it may have
 * landed, the operations committed, the label — and drops the body. Nothing in it depends on the
 * body's content beyond the fact that it was too large.
 */
export function answerTooLarge(answer: CommandAnswer): CommandAnswer {
  return {
    ok: false,
    id: answer.id,
    code: 'failed',
    reason: ANSWER_TOO_LARGE,
    mayHaveLanded: answer.mayHaveLanded,
    completed: answer.completed,
    body: {
      message: `the answer is over the protocol's ${MAX_ANSWER_LINE_BYTES}-byte answer limit, so it was not sent (the command did run). Lower the command's max_output, or make it print less.`,
    },
    ...(answer.ifc === undefined ? {} : { ifc: answer.ifc }),
  };
}
