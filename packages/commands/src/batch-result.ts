// Fitting a batch's results into one output bound, and the order in which they shrink to fit
// (seed 000 "A batch's result").
import { entryStub } from './call-result';
import type { UnansweredOutcome } from './deliver-call';
import {
  type BatchOutcome,
  type CallOutcome,
  type CallSummary,
  type ExecutedOutcome,
  unreachable,
} from './outcome';
import { EntryStatus, Landed, OutcomeStatus } from './outcome-codes';
import { jsonBytes } from './shape';

/** One call's whole result, its output id minted, as a lone call would have it. */
type NumberedCall = ExecutedOutcome | UnansweredOutcome;

/**
 * The batch result, from each call's whole result. Summaries are charged in the calls' order, each
 * beside the smallest form of every later call, so an early call never takes the room a later one
 * needs to appear at all. A summary shrinks first by dropping the signature, then to
 * `ok`/`code`/`bodyBytes`; then answers' values go in, in the calls' order, against what is left,
 * and one that does not fit is marked `truncated`.
 */
export function batchResult(batchId: string, calls: readonly NumberedCall[], bound: number): BatchOutcome {
  // Each call's forms, largest first; the last is the smallest it can ever be.
  const forms = calls.map(formsOf);
  // An answer that may be left out reserves the `"truncated":true` mark it would then carry.
  const mark = jsonBytes({ truncated: true }) - 1;
  const size = forms.map((fs, i) => {
    const reserve = calls[i] !== undefined && fullEntryOf(calls[i]) !== undefined ? mark : 0;
    return fs.map((f) => jsonBytes(f) + 1 + reserve);
  });
  const minSize = size.map((s) => s[s.length - 1] ?? 0);
  const minFrom = new Array<number>(calls.length + 1).fill(0);
  for (let i = calls.length - 1; i >= 0; i--) minFrom[i] = (minFrom[i + 1] ?? 0) + (minSize[i] ?? 0);
  let used = jsonBytes({ outputId: batchId, status: OutcomeStatus.batch, results: [], truncated: false });
  const chosen: CallOutcome[] = [];
  forms.forEach((fs, i) => {
    const avail = bound - used - (minFrom[i + 1] ?? 0);
    const sizes = size[i] ?? [];
    let pick = fs.length - 1;
    for (let k = 0; k < fs.length; k++) {
      if ((sizes[k] ?? 0) <= avail) {
        pick = k;
        break;
      }
    }
    chosen.push({ ...(fs[pick] as CallOutcome) });
    used += sizes[pick] ?? 0;
  });
  let left = bound - used;
  let truncated = false;
  calls.forEach((call, i) => {
    const target = chosen[i];
    const full = fullEntryOf(call);
    if (full === undefined || target?.status !== OutcomeStatus.executed) return;
    const extra = jsonBytes(full) - jsonBytes(entryStub(full)) - mark;
    if (extra <= left) {
      target.entry = full;
      left -= extra;
    } else {
      target.truncated = true;
      truncated = true;
    }
  });
  return { outputId: batchId, status: OutcomeStatus.batch, results: chosen, truncated };
}

/** A call's forms in a batch, largest first: its summary with and without its signature, then its smallest. */
function formsOf(call: NumberedCall): CallOutcome[] {
  if (call.status !== OutcomeStatus.executed) return [call, minimalOf(call)];
  const stub = call.entry.status === EntryStatus.admitted ? entryStub(call.entry) : call.entry;
  const base: ExecutedOutcome = {
    outputId: call.outputId,
    status: call.status,
    ...(call.command === undefined ? {} : { command: call.command }),
    outcome: batchSummary(call.outcome),
    entry: stub,
  };
  const minimal = minimalAnswered(call, stub);
  if (call.signature === undefined) return [base, minimal];
  return [{ ...base, signature: call.signature }, base, minimal];
}

/** The entry of a call whose answer's value may go in, with that value; `undefined` for any other. */
function fullEntryOf(
  call: NumberedCall,
): Extract<ExecutedOutcome['entry'], { status: 'admitted' }> | undefined {
  if (call.status !== OutcomeStatus.executed || call.entry.status !== EntryStatus.admitted) return undefined;
  return 'value' in call.entry ? call.entry : undefined;
}

/** A summary as a batch shows it: `completed` replaced by the count of every id the host reported. */
function batchSummary(outcome: CallSummary): CallSummary {
  // A withheld summary has no ids: its count is 0 whatever the answer, so it tells nothing.
  if (outcome.withheld === true) return { ...outcome, completedOmitted: 0 as const };
  const { completed, ...rest } = outcome;
  return { ...rest, completedOmitted: completed?.length ?? 0 };
}

/** An answered call's smallest form: its status and code, marked `summaryOmitted`. */
function minimalAnswered(call: ExecutedOutcome, stub: ExecutedOutcome['entry']): ExecutedOutcome {
  const o = call.outcome;
  return {
    outputId: call.outputId,
    status: OutcomeStatus.executed,
    outcome: o.withheld === true ? o : { ok: o.ok, code: o.code, bodyBytes: o.bodyBytes },
    entry: stub,
    summaryOmitted: true,
  };
}

/** An unanswered call's smallest form: its status, and whether and why nothing landed. */
function minimalOf(result: UnansweredOutcome): UnansweredOutcome {
  const { outputId } = result;
  switch (result.status) {
    case OutcomeStatus.unknown_command:
      return { outputId, status: result.status, summaryOmitted: true };
    case OutcomeStatus.failed_to_deliver:
      // One literal per `landed`, so that each keeps its own codes in the type.
      return result.landed === Landed.no
        ? { outputId, status: result.status, landed: result.landed, code: result.code, summaryOmitted: true }
        : { outputId, status: result.status, landed: result.landed, code: result.code, summaryOmitted: true };
    case OutcomeStatus.not_granted:
      return {
        outputId,
        status: result.status,
        landed: result.landed,
        code: result.code,
        summaryOmitted: true,
      };
    default:
      return unreachable(result);
  }
}
