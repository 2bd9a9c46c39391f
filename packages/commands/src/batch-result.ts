// Fitting a batch's results into one output bound, and the order in which they shrink to fit
// (seed 000 "A batch's result").
import type { ShapedAnswer } from './call-result';
import type { UnansweredOutcome } from './deliver-call';
import {
  type BatchOutcome,
  type CallOutcome,
  type CallSummary,
  type ExecutedOutcome,
  unreachable,
} from './outcome';
import { Landed, OutcomeStatus } from './outcome-codes';
import { jsonBytes } from './shape';

/** One call of a batch as it settled: an answer to shape, or a result already whole. */
export type SettledCall =
  | { kind: 'answered'; shaped: ShapedAnswer }
  | { kind: 'final'; result: UnansweredOutcome };

/**
 * The batch result. Summaries are charged in the calls' order, each beside the smallest form of
 * every later call, so an early call never takes the room a later one needs to appear at all. A
 * summary shrinks first by dropping the signature, then to `ok`/`code`/`bodyBytes`; then answers'
 * values go in, in the calls' order, against what is left, and one that does not fit is marked
 * `truncated`.
 */
export function batchResult(batchId: string, calls: readonly SettledCall[], bound: number): BatchOutcome {
  // Each call's forms, largest first; the last is the smallest it can ever be.
  const forms = calls.map(formsOf);
  // An answer that may be left out reserves the `"truncated":true` mark it would then carry.
  const mark = jsonBytes({ truncated: true }) - 1;
  const size = forms.map((fs, i) => fs.map((f) => jsonBytes(f) + 1 + (fullEntryOf(calls[i]) ? mark : 0)));
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
    const full = call.kind === 'answered' ? call.shaped.entryFull : undefined;
    if (full === undefined || call.kind !== 'answered' || target?.status !== OutcomeStatus.executed) return;
    const extra = jsonBytes(full) - jsonBytes(call.shaped.entryStub) - mark;
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

/** A call's forms in a batch, largest first. */
function formsOf(call: SettledCall): CallOutcome[] {
  if (call.kind === 'final') return [call.result, minimalOf(call.result)];
  const e = call.shaped;
  const base: ExecutedOutcome = { ...e.summary, outcome: batchSummary(e.outcome), entry: e.entryStub };
  if (e.signature === undefined) return [base, minimalAnswered(e)];
  return [{ ...base, signature: e.signature }, base, minimalAnswered(e)];
}

function fullEntryOf(call: SettledCall | undefined): boolean {
  return call?.kind === 'answered' && call.shaped.entryFull !== undefined;
}

/** A summary as a batch shows it: `completed` replaced by the count of every id the host reported. */
function batchSummary(outcome: CallSummary): CallSummary {
  // A withheld summary has no ids: its count is 0 whatever the answer, so it tells nothing.
  if (outcome.withheld === true) return { ...outcome, completedOmitted: 0 as const };
  const { completed, ...rest } = outcome;
  return { ...rest, completedOmitted: completed?.length ?? 0 };
}

/** An answered call's smallest form: its status and code, marked `summaryOmitted`. */
function minimalAnswered(shaped: ShapedAnswer): ExecutedOutcome {
  const o = shaped.outcome;
  return {
    outputId: shaped.summary.outputId,
    status: OutcomeStatus.executed,
    outcome: o.withheld === true ? o : { ok: o.ok, code: o.code, bodyBytes: o.bodyBytes },
    entry: shaped.entryStub,
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
