// The loom CLI's error class: a table of codes on the shared base (docs/errors.md), each with the
// exit code docs/protocol.md gives it.
import { CodedError, type CodeOf, defineCodes } from '@harness/errors';
import { EXIT } from '@harness/protocol';

/** Codes of {@link LoomError}. `loom command …` prints the code in its `{ "error": { code, message } }` line. */
export const LoomErrorCode = defineCodes({
  /** The command line does not parse: an unknown flag, a missing value, malformed or oversized stdin. */
  usage: 'usage',
  /** `loom command …` over a broker with no socket to reach (`LOOM_PAGE_RPC_QUEUE` unset). */
  unreachable: 'unreachable',
  /** `loom approvals approve|deny` named an approval that is unknown or no longer pending. */
  not_decidable: 'not_decidable',
});

/** One of the {@link LoomErrorCode} values. */
export type LoomErrorCode = CodeOf<typeof LoomErrorCode>;

/** The exit code of each {@link LoomErrorCode}: `2` usage, `3` nothing was sent, `1` nothing to decide. */
export const LOOM_ERROR_EXIT: Record<LoomErrorCode, number> = {
  usage: EXIT.usage,
  unreachable: EXIT.unreachable,
  not_decidable: EXIT.answerNotOk,
};

/** An expected failure of the loom CLI: one line for the person or the harness, and an exit code. */
export class LoomError extends CodedError<LoomErrorCode> {
  override readonly name = 'LoomError';
}
