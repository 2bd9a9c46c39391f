import { type Ceiling, fits } from './ceiling';
import { IfcError } from './errors';
import { carriesReadFailedMarker, type Label, normalize } from './label';
import { isReadableCeiling, readLabel } from './read';

/** Why an answer was withheld. */
export type WithheldReason = 'cfc_ceiling_exceeded' | 'cfc_label_read_failed';

/** Where an admitted answer's label came from: its own `ifc` field, or the query's label. */
export type LabelSource = 'row' | 'query';

/** An answer that may be shown: its content, the label it was measured at, and where that came from. */
export interface Admitted<T> {
  readonly status: 'admitted';
  readonly labelSource: LabelSource;
  readonly label: Label;
  readonly answer: T;
}

/**
 * An answer that may not be shown. It holds its status and reason code and nothing else: it keeps no
 * reference to the answer, so no part of the content can reach a caller through it.
 */
export interface Withheld {
  readonly status: 'withheld';
  readonly reasonCode: WithheldReason;
}

/** The outcome of {@link measure}. */
export type Measurement<T> = Admitted<T> | Withheld;

/** What an answer is measured against. */
export interface MeasureOptions {
  /** The label of what was asked (for a batch, the join of every call's input label). */
  readonly queryLabel: Label;
  /**
   * The run's observation ceiling. Required as a key: `undefined` states "no ceiling"; a missing key is
   * refused, so a forgotten ceiling can never read as none.
   */
  readonly ceiling: Ceiling;
}

/** The one withheld result for an answer over the ceiling (frozen, shared, content-free). */
export const WITHHELD_CEILING_EXCEEDED: Withheld = Object.freeze({
  status: 'withheld',
  reasonCode: 'cfc_ceiling_exceeded',
});

/** The one withheld result for an answer whose label could not be read (frozen, shared, content-free). */
export const WITHHELD_LABEL_READ_FAILED: Withheld = Object.freeze({
  status: 'withheld',
  reasonCode: 'cfc_label_read_failed',
});

/**
 * The label of a row that carries none of its own: the query's confidentiality (the answer may hold
 * anything the query did) and no integrity (nobody endorsed it). Published upstream as
 * `labelForUnlabeledLoomRow`.
 */
export function labelForUnlabeled(queryLabel: Label): Label {
  return { confidentiality: normalize(queryLabel).confidentiality, integrity: [] };
}

/**
 * Measures one answer (a host's CommandAnswer, or a retrieval row: any object whose label is its
 * optional `ifc` field) against the run's ceiling. Only `ifc` is read, never the content, so the
 * decision cannot depend on what the answer says.
 *
 * - `ifc` absent (no own key, or `undefined`): the answer takes {@link labelForUnlabeled} of the query.
 * - `ifc` present but unreadable (`null` included), or a label carrying the read-failed marker, or an
 *   unreadable query label: withheld `cfc_label_read_failed`, whatever the ceiling.
 * - otherwise admitted when the label fits the ceiling, else withheld `cfc_ceiling_exceeded`.
 *
 * @throws IfcError `ceiling_unavailable` when `options` states no `ceiling` key or an unreadable one: the
 * caller reads the ceiling with `readCeiling` first and refuses the call when it cannot.
 */
export function measure<T>(answer: T, options: MeasureOptions): Measurement<T> {
  if (typeof options !== 'object' || options === null || !Object.hasOwn(options, 'ceiling')) {
    throw new IfcError(
      'ceiling_unavailable',
      'measure() was called without a `ceiling` key. Expected `{ queryLabel, ceiling }` where `ceiling` is ' +
        'undefined (none) or a list of clauses; read it with readCeiling() and refuse the call if it fails.',
    );
  }
  const ceiling: unknown = options.ceiling;
  if (!isReadableCeiling(ceiling)) {
    throw new IfcError(
      'ceiling_unavailable',
      'measure() was given an unreadable ceiling. Expected undefined or a ' +
        'list of clauses; read it with readCeiling() and refuse the call if it fails.',
    );
  }
  if (typeof answer !== 'object' || answer === null) return WITHHELD_LABEL_READ_FAILED;

  let label: Label;
  let labelSource: LabelSource;
  const own = Object.hasOwn(answer, 'ifc') ? (answer as { ifc?: unknown }).ifc : undefined;
  const row = readLabel(own);
  if (row.status === 'malformed') return WITHHELD_LABEL_READ_FAILED;
  if (row.status === 'label') {
    label = row.label;
    labelSource = 'row';
  } else {
    // Missing metadata never passes as an unlabeled observation: the query label must itself be readable.
    const query = readLabel(options.queryLabel);
    if (query.status !== 'label') return WITHHELD_LABEL_READ_FAILED;
    label = { confidentiality: query.label.confidentiality, integrity: [] };
    labelSource = 'query';
  }
  if (carriesReadFailedMarker(label)) return WITHHELD_LABEL_READ_FAILED;
  if (!fits(label, ceiling)) return WITHHELD_CEILING_EXCEEDED;
  return { status: 'admitted', labelSource, label, answer };
}
