// Taking one call of run_command / run_read_command to the host and back: the catalog check, the
// read-only gate, the send, and what a call that got no answer reports.
import type { ReceivedAnswer, RunProgress } from '@harness/protocol';
import type { CallParse, ParsedCall } from './call-input';
import { type Catalog, type CatalogRow, suggest } from './catalog';
import { sendRun } from './host/send';
import type { HostClient, SendFailure } from './host/types';
import type { FailedToDeliverOutcome, NotGrantedOutcome, UnknownCommandOutcome } from './outcome';
import { DeliveryCode, Landed, OutcomeStatus, ReadRefusal, RefusalCode } from './outcome-codes';
import { cutId } from './shape';
import type { HostCallObserver, ToolContext } from './tool';

/** A result before its output id is minted (ids are minted in the calls' order once all settled). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'outputId'> : never;

/** The result of a call that got no answer to shape, its output id minted. */
export type UnansweredOutcome = (UnknownCommandOutcome | FailedToDeliverOutcome | NotGrantedOutcome) & {
  outputId: string;
};

/**
 * How one call of `run_command` settled: `unanswered`, with its whole result already but for its
 * output id (minted in the calls' order once all settled), or `answered`, with the command layer's
 * answer as the protocol's reader read it, to shape into the call's result.
 */
export type Settlement =
  | { kind: 'unanswered'; result: Unnumbered<UnansweredOutcome> }
  | {
      kind: 'answered';
      call: ParsedCall;
      row: CatalogRow;
      answer: ReceivedAnswer;
      /** The observer of this call (`ToolContext.onHostCall`), told of the answer's measurement. */
      seen?: HostCallObserver | undefined;
    };

const UNKNOWN_HINT = 'Call list_commands.';

/**
 * The hint of an unknown name while the host holds tools back for review: the name may be one of
 * them, and only a person can make it callable. Counts only: the host never names a held tool here.
 */
function unknownHint(catalog: Catalog): string {
  const n = catalog.quarantined;
  if (n === 0) return UNKNOWN_HINT;
  return `${UNKNOWN_HINT} ${n} more tool${n === 1 ? ' is' : 's are'} quarantined pending a person's review of ${n === 1 ? 'its definition' : 'their definitions'} and cannot be called until accepted; if this is one of them, tell the person (they review with \`harness servers review\`).`;
}
const READ_NOT_GRANTED_HINT =
  'run_read_command runs only commands whose effect is "read" and that carry readOnlyGranted: true in a fresh list_commands. Do not retry it here; use run_command if the task allows a write, or offer the command to the person.';
const LOST_HINT =
  'The command was sent and its answer could not be read: it may have taken effect. Check before repeating it.';

/** Why a call the host client did not send was not sent, as the model reads it. */
const NOT_SENT_MESSAGES = {
  [DeliveryCode.cancelled]: 'The turn was cancelled before this call was sent.',
  [DeliveryCode.invalid_input]:
    'The host refused the call before running it (malformed or oversized arguments).',
  [DeliveryCode.command_failed]: 'The host could not be reached; nothing was sent.',
  [DeliveryCode.busy]:
    'The host connection already carries its limit of calls in flight; nothing was sent. Retry once earlier calls have answered.',
} as const satisfies Record<Extract<SendFailure, { kind: 'not_sent' }>['code'], string>;

/**
 * Delivers one call and says how it settled. Only a command the catalog lists is sent; `readOnly` (run_read_command) also
 * needs the row to be a granted read, and asks the host to enforce it with `--read-only`. The call
 * waits for its command's timeout from the row plus a margin; with `ctx.stopStarted`, the turn's
 * signal also stops it once sent; `onProgress` receives the host's reports while it runs.
 */
export async function deliverCall(
  parsed: CallParse,
  readOnly: boolean,
  catalog: Catalog,
  client: HostClient,
  ctx: ToolContext,
  onProgress?: (command: string, progress: RunProgress) => void,
): Promise<Settlement> {
  if (!parsed.ok)
    return final({
      status: OutcomeStatus.failed_to_deliver,
      landed: Landed.no,
      code: DeliveryCode.invalid_input,
      message: parsed.message,
    });
  const call = parsed.call;
  if (ctx.signal?.aborted)
    return final({
      status: OutcomeStatus.failed_to_deliver,
      landed: Landed.no,
      code: DeliveryCode.cancelled,
      command: cutId(call.command),
      message: NOT_SENT_MESSAGES.cancelled,
    });
  const row = catalog.byName.get(call.command);
  if (!row)
    return final({
      status: OutcomeStatus.unknown_command,
      command: cutId(call.command),
      suggestions: suggest(catalog, call.command),
      hint: unknownHint(catalog),
    });
  if (readOnly && (row.effect !== 'read' || !row.readOnlyGranted))
    return final({
      status: OutcomeStatus.not_granted,
      landed: Landed.no,
      code: RefusalCode.not_granted,
      command: row.name,
      reasonCode: row.effect !== 'read' ? ReadRefusal.effect_not_read : ReadRefusal.read_only_not_granted,
      hint: READ_NOT_GRANTED_HINT,
    });

  const seen = ctx.onHostCall?.(row.name, row.telemetryArgs ? { args: call.args } : {});
  // The call as the model wrote it goes as it is: the catalog found its row by its command's name.
  const outcome = await sendRun(client, call, ctx, {
    ...(readOnly ? { readOnly: true } : {}),
    session: ctx.session,
    commandTimeoutMs: row.timeoutMs,
    stop: ctx.stopStarted === true ? ctx.signal : undefined,
    onProgress:
      onProgress === undefined && seen === undefined
        ? undefined
        : (p) => {
            seen?.progress(p);
            onProgress?.(row.name, p);
          },
  });
  seen?.settled(outcome);

  if (outcome.kind === 'lost')
    return final({
      status: OutcomeStatus.failed_to_deliver,
      landed: Landed.unknown,
      code: DeliveryCode.answer_lost,
      command: row.name,
      hint: LOST_HINT,
    });
  if (outcome.kind === 'not_sent')
    return final({
      status: OutcomeStatus.failed_to_deliver,
      landed: Landed.no,
      code: outcome.code,
      command: row.name,
      message: NOT_SENT_MESSAGES[outcome.code],
    });
  return { kind: 'answered', call, row, answer: outcome, seen };
}

function final(result: Unnumbered<UnansweredOutcome>): Settlement {
  return { kind: 'unanswered', result };
}
