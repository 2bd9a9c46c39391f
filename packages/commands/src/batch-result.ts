// Fitting a batch's results into one output bound, and the order in which they shrink to fit
// (seed 000 "A batch's result").
import type { ShapedAnswer } from './call-result';
import { jsonBytes } from './shape';
import type { ToolResult } from './tool';

/**
 * The batch result. Summaries are charged in the calls' order, each beside the smallest form of
 * every later call, so an early call never takes the room a later one needs to appear at all. A
 * summary shrinks first by dropping the signature, then to `ok`/`code`/`bodyBytes`; then answers'
 * values go in, in the calls' order, against what is left, and one that does not fit is marked
 * `truncated`.
 *
 * `results[i]` is call i's result (a summary for an answered call); `shaped[i]` is its shaped
 * answer, `undefined` for a call that got none.
 */
export function batchResult(
  batchId: string,
  results: readonly Record<string, unknown>[],
  shaped: readonly (ShapedAnswer | undefined)[],
  bound: number,
): ToolResult {
  // Each call's forms, largest first; the last is the smallest it can ever be.
  const forms = results.map((r, i) => {
    const e = shaped[i];
    if (!e) return [r, minimalOf(r, undefined)];
    const { completed, ...rest } = e.outcome;
    const outcome = { ...rest, completedOmitted: Array.isArray(completed) ? completed.length : 0 };
    const base = { ...r, outcome, entry: e.entryStub };
    const full = e.signature !== undefined ? { ...base, signature: e.signature } : base;
    return e.signature !== undefined ? [full, base, minimalOf(r, e)] : [full, minimalOf(r, e)];
  });
  // An answer that may be left out reserves the `"truncated":true` mark it would then carry.
  const mark = jsonBytes({ truncated: true }) - 1;
  const size = forms.map((fs, i) => fs.map((f) => jsonBytes(f) + 1 + (shaped[i]?.entryFull ? mark : 0)));
  const minSize = size.map((s) => s[s.length - 1] ?? 0);
  const minFrom = new Array<number>(results.length + 1).fill(0);
  for (let i = results.length - 1; i >= 0; i--) minFrom[i] = (minFrom[i + 1] ?? 0) + (minSize[i] ?? 0);
  let used = jsonBytes({ outputId: batchId, status: 'batch', results: [], truncated: false });
  const chosen: Record<string, unknown>[] = [];
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
    chosen.push({ ...(fs[pick] as Record<string, unknown>) });
    used += sizes[pick] ?? 0;
  });
  let left = bound - used;
  let truncated = false;
  shaped.forEach((e, i) => {
    if (!e?.entryFull) return;
    const extra = jsonBytes(e.entryFull) - jsonBytes(e.entryStub) - mark;
    const target = chosen[i] as Record<string, unknown>;
    if (extra <= left) {
      target.entry = e.entryFull;
      left -= extra;
    } else {
      target.truncated = true;
      truncated = true;
    }
  });
  return { outputId: batchId, status: 'batch', results: chosen, truncated };
}

/** A call's smallest form: its status and code, marked `summaryOmitted`. */
function minimalOf(
  result: Record<string, unknown>,
  shaped: ShapedAnswer | undefined,
): Record<string, unknown> {
  if (shaped) {
    const o = shaped.outcome;
    return {
      outputId: result.outputId,
      status: 'executed',
      outcome: o.withheld === true ? o : { ok: o.ok, code: o.code, bodyBytes: o.bodyBytes },
      entry: shaped.entryStub,
      summaryOmitted: true,
    };
  }
  const m: Record<string, unknown> = { outputId: result.outputId, status: result.status };
  if (result.landed !== undefined) m.landed = result.landed;
  if (result.code !== undefined) m.code = result.code;
  m.summaryOmitted = true;
  return m;
}
