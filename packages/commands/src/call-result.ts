// Shaping one answered call for the model: the outcome summary, the answer measured against the
// run's ceiling and held as a referent, and a lone call's result fitted to the output bound.
import { join, type Label, type Measurement, measure } from '@harness/ifc';
import type { CatalogRow } from './catalog';
import type { Delivery } from './deliver-call';
import type { HostAnswer } from './host/types';
import { isRecord } from './json';
import { LIMITS } from './limits';
import type { AdmittedEntry, CallSummary, Entry, ExecutedOutcome, WithheldSummary } from './outcome';
import { EntryStatus, HOST_REFUSALS, OutcomeStatus, RefusalCode } from './outcome-codes';
import type { RunState } from './run';
import { boundStrings, cutId, jsonBytes } from './shape';

/** `{ outputId, status: "executed", command, outcome }`: the smallest whole result of an answered call. */
export type ExecutedSummary = Pick<ExecutedOutcome, 'outputId' | 'status' | 'command' | 'outcome'>;

/** One answered call, in every form the lone-call and batch results choose between. */
export interface ShapedAnswer {
  summary: ExecutedSummary;
  /** What the command layer said, cut to identifiers: never the body itself. */
  outcome: CallSummary;
  /** The command's signature, given back after `bad-args` so the model can fix its arguments. */
  signature: string | undefined;
  hint: string | undefined;
  measurement: Measurement<Record<string, unknown>>;
  /** The entry without the answer's value: its admission status and referent id. */
  entryStub: Entry;
  /** The entry with the bounded value, for an admitted answer only. */
  entryFull: AdmittedEntry | undefined;
}

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
 * Shapes an answered call. The answer is measured against the run's ceiling with `queryLabel` (what
 * the model had seen when it wrote the call); an admitted answer is held as a referent whose
 * provenance names the command, the loom and the version it reports.
 */
export function shapeAnswer(
  run: RunState,
  delivered: Extract<Delivery, { kind: 'answered' }>,
  queryLabel: Label,
  outputId: string,
): ShapedAnswer {
  const { answer, row, call } = delivered;
  const hostCode = HOST_REFUSALS.find((c) => c === answer.code);
  // Three refusals a model must tell apart: ask a person, fix the value, or leave it.
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
  const signature = answer.code === 'bad-args' ? row.signature : undefined;

  const measuredFrom = performance.timeOrigin + performance.now();
  const measurement = measure(answerForMeasure(answer, row), { queryLabel, ceiling: run.ceiling });
  delivered.seen?.measured?.({
    status: measurement.status,
    ...(measurement.status === EntryStatus.admitted ? {} : { reasonCode: measurement.reasonCode }),
    startTime: measuredFrom,
    endTime: performance.timeOrigin + performance.now(),
  });
  let entryStub: Entry;
  let entryFull: AdmittedEntry | undefined;
  if (measurement.status === EntryStatus.admitted) {
    const body = answer.body;
    const named = isRecord(body) && typeof body.handle === 'string' ? body.handle : undefined;
    const version = reportedVersion(body);
    const loomId =
      call.loomId ?? (isRecord(body) && typeof body.loom_id === 'string' ? body.loom_id : undefined);
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
    const admitted: AdmittedEntry = {
      status: EntryStatus.admitted,
      labelSource: measurement.labelSource,
      referent: referent.id,
    };
    entryStub = admitted;
    entryFull = { ...admitted, value: boundStrings(body) };
  } else {
    entryStub = { status: EntryStatus.withheld, reasonCode: measurement.reasonCode };
    // Nothing that depends on the answer may pass a withheld answer: not ok, the code, the reason,
    // the sizes (a `grep -c` turned them into a yes/no oracle on the content). Whether it may have
    // landed comes from the catalog's effect, never from the answer.
    const withheld = withheldOutcome(row);
    const summary: ExecutedSummary = {
      outputId,
      status: OutcomeStatus.executed,
      command: row.name,
      outcome: withheld,
    };
    return {
      summary,
      outcome: withheld,
      signature: undefined,
      hint: undefined,
      measurement,
      entryStub,
      entryFull,
    };
  }
  const summary: ExecutedSummary = { outputId, status: OutcomeStatus.executed, command: row.name, outcome };
  return { summary, outcome, signature, hint, measurement, entryStub, entryFull };
}

/**
 * The result of a lone call: the whole summary with its entry, the answer's value left out
 * (`truncated: true`) when the whole would pass `outputBound`.
 */
export function loneCallResult(shaped: ShapedAnswer, outputBound: number): ExecutedOutcome {
  const result: ExecutedOutcome = {
    ...shaped.summary,
    ...(shaped.hint === undefined ? {} : { hint: shaped.hint }),
    ...(shaped.signature === undefined ? {} : { signature: shaped.signature }),
    entry: shaped.entryFull ?? shaped.entryStub,
    truncated: false,
  };
  // Spread over itself, each key keeps its place: the serialized result differs only in these two.
  if (shaped.entryFull && jsonBytes(result) > outputBound)
    return { ...result, entry: shaped.entryStub, truncated: true };
  return result;
}

/** The outcome of a withheld answer: the same for every answer of the command. */
function withheldOutcome(row: CatalogRow): WithheldSummary {
  return { withheld: true, mayHaveLanded: row.effect !== 'read' };
}

function answerForMeasure(answer: HostAnswer, row: CatalogRow): Record<string, unknown> {
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
  if (answer.hasLabel) a.ifc = answer.ifc;
  else if (row.hasLabel) a.ifc = row.ifc;
  return a;
}

/** The loom version an answer body reports, wherever a Loom command puts it. */
function reportedVersion(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  for (const v of [
    body.version,
    body.current_version,
    isRecord(body.receipt) ? body.receipt.version : undefined,
  ]) {
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  }
  return undefined;
}
