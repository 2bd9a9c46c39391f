import { type Ceiling, fits } from './ceiling';
import { IfcError } from './errors';
import { join, joinAll, type Label, PUBLIC } from './label';
import type { Measurement } from './measure';
import { readLabel } from './read';

/** The channel an observation came over. Answers reach the model over its output channel. */
export type ObservationChannel = 'output';

/** One recorded observation: what was observed and the run's context label after it. */
export interface Observation {
  /** 1-based position in the run's log. */
  readonly seq: number;
  readonly channel: ObservationChannel;
  /** The label observed (for a batch, the join of its admitted answers' labels). */
  readonly label: Label;
  /** The run's context label once this observation was joined in. */
  readonly context: Label;
}

function checkedLabel(value: unknown, what: string): Label {
  const read = readLabel(value);
  if (read.status !== 'label') {
    throw new IfcError(
      'invalid_label',
      `${what} is not a readable label (${read.status}). Expected { confidentiality: Clause[], integrity: Atom[] }; ` +
        'measure the data first and observe only an admitted label.',
    );
  }
  return read.label;
}

/** How many of its latest observations a log keeps by default. */
export const OBSERVATIONS_KEPT = 256;

/**
 * A run's model-context label and the observations that raised it. The context only rises: each
 * observation is joined in, so every earlier context flows to every later one. The label stays here (on
 * the artifact), not in what the model is shown.
 *
 * The context is a join, so it needs no history: the log keeps only its latest `keep` observations
 * (default {@link OBSERVATIONS_KEPT}) for inspection, while `seq` keeps counting from the run's first.
 */
export class ObservationLog {
  #context: Label;
  readonly #observations: Observation[] = [];
  readonly #keep: number;
  #seq = 0;

  /** Starts a run's log at `initial` (default {@link PUBLIC}), keeping the latest `keep` observations. */
  constructor(options: { readonly initial?: Label; readonly keep?: number } = {}) {
    this.#context = checkedLabel(options.initial ?? PUBLIC, 'The initial context label');
    const keep = options.keep ?? OBSERVATIONS_KEPT;
    if (!Number.isSafeInteger(keep) || keep < 0) {
      throw new IfcError(
        'invalid_bound',
        `keep must be a whole number of at least 0 (found ${String(keep)}).`,
      );
    }
    this.#keep = keep;
  }

  /** The run's current context label. */
  get context(): Label {
    return this.#context;
  }

  /** The latest observations (at most `keep`), oldest first (a copy). */
  get observations(): readonly Observation[] {
    return [...this.#observations];
  }

  /**
   * Records one observation over the output channel and raises the context to include it.
   * @throws IfcError `invalid_label` for a value that is not a readable label: an unknown label is never
   * recorded as though it were public.
   */
  observe(label: Label, channel: ObservationChannel = 'output'): Observation {
    const observed = checkedLabel(label, 'The observed label');
    this.#context = join(this.#context, observed);
    const observation: Observation = {
      seq: ++this.#seq,
      channel,
      label: observed,
      context: this.#context,
    };
    this.#observations.push(observation);
    if (this.#observations.length > this.#keep) this.#observations.shift();
    return observation;
  }

  /**
   * Records a batch (or a lone call, as a batch of one): exactly one observation, the join of the
   * admitted measurements' labels, or none (`undefined`) when nothing was admitted. Withheld answers add
   * nothing, as the model saw nothing of them.
   */
  observeBatch(measurements: readonly Measurement<unknown>[]): Observation | undefined {
    const admitted: Label[] = [];
    for (const m of measurements) if (m.status === 'admitted') admitted.push(m.label);
    if (admitted.length === 0) return undefined;
    return this.observe(joinAll(admitted));
  }

  /** Whether the current context fits under a ceiling. */
  fits(ceiling: Ceiling): boolean {
    return fits(this.#context, ceiling);
  }
}
