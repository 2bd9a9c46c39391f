// Shaping one answered call for the model: the outcome summary, the answer measured against the
// run's ceiling and held as a referent, and a lone call's result fitted to the output bound.
import { join, type Label, type LabelSource, type Measurement, measure } from '@harness/ifc';
import type { ReceivedAnswer } from '@harness/protocol';
import { z } from 'zod';
import type { CatalogRow } from './catalog';
import type { Settlement } from './deliver-call';
import { LIMITS } from './limits';
import type { AdmittedEntry, CallOutcome, CallSummary, ExecutedOutcome, WithheldSummary } from './outcome';
import { EntryStatus, HOST_REFUSALS, OutcomeStatus, RefusalCode } from './outcome-codes';
import type { RunState } from './run';
import { boundStrings, cutId, jsonBytes } from './shape';

/** The hint beside each refusal code (`approval_required` has none: the host's message is the one sentence). */
const REFUSAL_HINTS = {
  [RefusalCode.not_granted]:
    'The host did not grant this command to this run. Do not retry it: say in your result that the command needs the person to grant it, and offer it to them.',
  [RefusalCode.render_refused]:
    'The host refused an argument value before running anything (see the message). Change that value and call again.',
} as const;

/**
 * A host's reasons for refusing a call whose approval went against it: denied by a person, by
 * nobody in time, or given for a plan the call no longer runs.
 */
const DECIDED_APPROVALS: ReadonlySet<string> = new Set([
  'approval_denied',
  'approval_expired',
  'plan_changed',
]);

/**
 * Shapes an answered call into its whole result, its entry holding the bounded value. The answer is
 * measured against the run's ceiling with `queryLabel` (what the model had seen when it wrote the
 * call), and the measurement added to `measured` (a tool call observes them all at once); an
 * admitted answer is held as a referent whose provenance names the command, the loom and the
 * version it reports.
 */
export function shapeAnswer(
  run: RunState,
  settled: Extract<Settlement, { kind: 'answered' }>,
  queryLabel: Label,
  outputId: string,
  measured: Measurement<unknown>[],
): ExecutedOutcome {
  const { answer, row, call } = settled;
  const measuredFrom = performance.timeOrigin + performance.now();
  const measurement = measure(answerForMeasure(answer, row), { queryLabel, ceiling: run.ceiling });
  measured.push(measurement);
  settled.seen?.measured?.({
    status: measurement.status,
    ...(measurement.status === EntryStatus.admitted ? {} : { reasonCode: measurement.reasonCode }),
    startTime: measuredFrom,
    endTime: performance.timeOrigin + performance.now(),
  });
  const executed = { outputId, status: OutcomeStatus.executed, command: row.name };
  if (measurement.status !== EntryStatus.admitted) {
    // Nothing that depends on the answer may pass a withheld answer: not ok, the code, the reason,
    // the sizes (a `grep -c` turned them into a yes/no oracle on the content). Whether it may have
    // landed comes from the catalog's effect, never from the answer.
    return {
      ...executed,
      outcome: withheldOutcome(row),
      entry: { status: EntryStatus.withheld, reasonCode: measurement.reasonCode },
      truncated: false,
    };
  }
  const { outcome, hint } = summaryOf(answer);
  const named = answer.kind === 'result' ? resultFacts(answer.body).handle : undefined;
  const version = reportedVersion(answer);
  const loomId = call.loomId ?? loomIdOf(answer);
  const parent = named === undefined ? undefined : run.referents.lookup(named).status;
  // A parent dropped past the store's bounds has no label left to join; the run's context covers
  // every document the run admitted, so joining it keeps the child at least as strict.
  const held =
    parent === 'expired'
      ? { ...measurement, label: join(measurement.label, run.observations.context) }
      : measurement;
  const referent = run.referents.hold(held, {
    source: 'command',
    provenance: {
      command: row.name,
      actor: run.actor,
      ...(loomId !== undefined ? { loomId } : {}),
      ...(version !== undefined ? { version } : {}),
    },
    // An answer naming a held referent by its handle was derived from it.
    ...(parent === 'held' && named !== undefined ? { derivedFrom: named } : {}),
  });
  const entry = admittedEntry(answer, measurement.labelSource, referent.id);
  return {
    ...executed,
    outcome,
    ...(hint === undefined ? {} : { hint }),
    // After `bad-args`, the command's signature, so the model can fix its arguments.
    ...(answer.code === 'bad-args' && row.signature !== undefined ? { signature: row.signature } : {}),
    entry,
    truncated: false,
  };
}

/**
 * An admitted answer's entry: its referent, its kind, and its body as the model may see it, every
 * string cut to a bound. Bounding keeps the body's type, and the kind and the body stay paired (the
 * compiler cannot follow the pair out of the union: hence the assertion).
 */
function admittedEntry(answer: ReceivedAnswer, labelSource: LabelSource, referent: string): AdmittedEntry {
  const entry = {
    status: EntryStatus.admitted,
    labelSource,
    referent,
    kind: answer.kind,
    value: boundStrings(answer.body),
  };
  return entry as AdmittedEntry;
}

/**
 * What the command layer said, cut to identifiers (never the body itself), and the hint a refusal
 * gets. A refusal's code is one a model must tell apart from the others — ask a person, fix the
 * value, or leave it — with the host's own as `hostCode`.
 */
function summaryOf(answer: ReceivedAnswer): { outcome: CallSummary; hint: string | undefined } {
  const hostCode = HOST_REFUSALS.find((c) => c === answer.code);
  const refusal =
    hostCode === undefined
      ? undefined
      : answer.reason === RefusalCode.approval_required || answer.reason === RefusalCode.render_refused
        ? answer.reason
        : RefusalCode.not_granted;
  const outcome: CallSummary = {
    ok: answer.ok,
    id: cutId(answer.id),
    code: refusal ?? cutId(answer.code),
    mayHaveLanded: answer.mayHaveLanded,
    completed: answer.completed.slice(0, LIMITS.maxCompleted).map((c) => cutId(c)),
    bodyBytes: jsonBytes(answer.body),
    ...(hostCode === undefined ? {} : { hostCode }),
    ...(answer.reason === undefined ? {} : { reason: cutId(answer.reason) }),
  };
  // The host's own message already says how an approval went (required, denied, expired); one
  // sentence, said once.
  const hint =
    refusal === undefined ||
    refusal === RefusalCode.approval_required ||
    (answer.reason !== undefined && DECIDED_APPROVALS.has(answer.reason))
      ? undefined
      : REFUSAL_HINTS[refusal];
  return { outcome, hint };
}

/**
 * The result of a lone call: the whole result, the answer's value left out (`truncated: true`)
 * when the whole would pass `outputBound`.
 */
export function loneCallResult<R extends CallOutcome>(result: R, outputBound: number): R {
  if (result.status !== OutcomeStatus.executed || result.entry.status !== EntryStatus.admitted) return result;
  // Spread over itself, each key keeps its place: the serialized result differs only in these two.
  if (jsonBytes(result) > outputBound) return { ...result, entry: entryStub(result.entry), truncated: true };
  return result;
}

/** An admitted entry without its value: what stays of it when the value does not fit. */
export function entryStub(entry: AdmittedEntry): AdmittedEntry {
  const { value: _left, ...stub } = entry;
  return stub;
}

/** The outcome of a withheld answer: the same for every answer of the command. */
function withheldOutcome(row: CatalogRow): WithheldSummary {
  return { withheld: true, mayHaveLanded: row.effect !== 'read' };
}

function answerForMeasure(answer: ReceivedAnswer, row: CatalogRow): Record<string, unknown> {
  const a: Record<string, unknown> = {
    ok: answer.ok,
    id: answer.id,
    code: answer.code,
    mayHaveLanded: answer.mayHaveLanded,
    completed: answer.completed,
    body: answer.body,
  };
  if (answer.reason !== undefined) a.reason = answer.reason;
  // The answer's own label; else the label the host declares for this command's answers (still
  // the host's statement about this answer); else none, and measure() takes the query's label.
  if ('ifc' in answer) a.ifc = answer.ifc;
  else if (row.hasLabel) a.ifc = row.ifc;
  return a;
}

/** The loom version an answer reports: the one it is at, or the one it conflicts with. */
function reportedVersion(answer: ReceivedAnswer): number | undefined {
  switch (answer.kind) {
    case 'composed':
    case 'version_conflict':
      return answer.body.current_version;
    case 'inspected':
      return answer.body.version;
    case 'result':
      return resultFacts(answer.body).version;
    default:
      return undefined;
  }
}

/** The loom an answer is about, where its body names one. */
function loomIdOf(answer: ReceivedAnswer): string | undefined {
  switch (answer.kind) {
    case 'inspected':
    case 'version_conflict':
    case 'not_found':
      return answer.body.loom_id;
    case 'result':
      return resultFacts(answer.body).loom_id;
    default:
      return undefined;
  }
}

const safeInt = () => z.number().refine(Number.isSafeInteger).optional().catch(undefined);

// What a command's own result (another host's command) may say of itself, each fact on its own: a
// field missing or of another type is not there, and leaves the others (HC-169).
const ResultFacts = z
  .object({
    /** A referent the result was derived from. */
    handle: z.string().optional().catch(undefined),
    loom_id: z.string().optional().catch(undefined),
    version: safeInt(),
    current_version: safeInt(),
    receipt: z.object({ version: safeInt() }).optional().catch(undefined),
  })
  .catch({});

/** The referent, loom and version a command's own result names; none for a result that is not an object. */
function resultFacts(body: unknown): { handle?: string; loom_id?: string; version?: number } {
  const facts = ResultFacts.parse(body);
  const version = facts.version ?? facts.current_version ?? facts.receipt?.version;
  return {
    ...(facts.handle === undefined ? {} : { handle: facts.handle }),
    ...(facts.loom_id === undefined ? {} : { loom_id: facts.loom_id }),
    ...(version === undefined ? {} : { version }),
  };
}
