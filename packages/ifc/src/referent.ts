import { IfcError } from './errors';
import { join, type Label } from './label';
import type { LabelSource, Measurement } from './measure';

/** What kind of data a document referent was minted from: a host command's answer, or a retrieval row. */
export type ReferentSource = 'command' | 'retrieval';

/** Where a held document came from. */
export interface Provenance {
  /** The command id that answered (e.g. `json-tools.query`). */
  readonly command: string;
  /** The actor the broker stamped (`agent:<id>`). */
  readonly actor: string;
  /** The loom the call named, if any. */
  readonly loomId?: string;
  /** The version the answer's outputs report, if any. */
  readonly version?: number;
}

/** An admitted answer held for the run as a document the model can cite by `id`. */
export interface DocumentReferent<T = unknown> {
  /** `doc-<n>`, numbered from 1 in the order this store minted them. */
  readonly id: string;
  readonly kind: 'document';
  /** What the document was minted from (`command` for a host command's answer). */
  readonly labelSource: ReferentSource;
  /** Whether its label is the answer's own (`row`) or the query's (`query`). */
  readonly labelFrom: LabelSource;
  /** The document's label; stays on the artifact, not in {@link ReferentCitation}. */
  readonly label: Label;
  readonly provenance: Provenance;
  readonly content: T;
  /** The referent whose structured result named this one, if it was minted from another's result. */
  readonly derivedFrom?: string;
}

/** The model-visible form of a referent: enough to cite it, without its label or content. */
export interface ReferentCitation {
  readonly id: string;
  readonly kind: 'document';
  readonly labelSource: ReferentSource;
  readonly provenance: Provenance;
  readonly derivedFrom?: string;
}

/** How {@link ReferentStore.hold} files a document. */
export interface HoldInput {
  readonly source: ReferentSource;
  readonly provenance: Provenance;
  /** The id of the referent whose structured result names this document (it is linked to it). */
  readonly derivedFrom?: string;
}

/**
 * A run's held documents. Ids are `doc-1`, `doc-2`, … in minting order, so a run's ids are the same
 * every time it makes the same calls in the same order. One store per run.
 */
export class ReferentStore {
  readonly #byId = new Map<string, DocumentReferent>();
  #next = 1;

  /**
   * Holds an admitted answer as a document. A document derived from another's result takes the join of
   * both labels: what was minted from labelled data is never labelled looser than its source.
   * @throws IfcError `not_admitted` for a withheld measurement, `unknown_referent` for a `derivedFrom` this
   * store does not hold, `invalid_provenance` for a provenance without command or actor.
   */
  hold<T>(measurement: Measurement<T>, input: HoldInput): DocumentReferent<T> {
    if (measurement.status !== 'admitted') {
      throw new IfcError(
        'not_admitted',
        `Only an admitted answer can be held as a document; this one was withheld (${measurement.reasonCode}). ` +
          'Show its status and reason code instead.',
      );
    }
    const { provenance } = input;
    if (
      typeof provenance?.command !== 'string' ||
      provenance.command.length === 0 ||
      typeof provenance.actor !== 'string' ||
      provenance.actor.length === 0
    ) {
      throw new IfcError(
        'invalid_provenance',
        'A document needs provenance naming its command and actor (non-empty strings); pass the command id ' +
          'that answered and the agent actor the broker stamped.',
      );
    }
    let label = measurement.label;
    if (input.derivedFrom !== undefined) {
      const parent = this.#byId.get(input.derivedFrom);
      if (parent === undefined) {
        throw new IfcError(
          'unknown_referent',
          `derivedFrom names no document held by this run's store (ids run doc-1..doc-${this.#next - 1}); ` +
            'pass the id hold() returned for the source document.',
        );
      }
      label = join(parent.label, label);
    }
    const id = `doc-${this.#next++}`;
    const referent: DocumentReferent<T> = Object.freeze({
      id,
      kind: 'document',
      labelSource: input.source,
      labelFrom: measurement.labelSource,
      label,
      provenance: Object.freeze({ ...provenance }),
      content: measurement.answer,
      ...(input.derivedFrom === undefined ? {} : { derivedFrom: input.derivedFrom }),
    });
    this.#byId.set(id, referent);
    return referent;
  }

  /** The document held under `id`, or `undefined`. */
  get(id: string): DocumentReferent | undefined {
    return this.#byId.get(id);
  }

  /** Every held document, in minting order. */
  list(): readonly DocumentReferent[] {
    return [...this.#byId.values()];
  }

  /** The documents minted from `id`'s result, in minting order. */
  derivedFrom(id: string): readonly DocumentReferent[] {
    return this.list().filter((r) => r.derivedFrom === id);
  }

  /** What the model may be shown to cite `id`: no label, no content. `undefined` for an unknown id. */
  cite(id: string): ReferentCitation | undefined {
    const r = this.#byId.get(id);
    if (r === undefined) return undefined;
    return {
      id: r.id,
      kind: r.kind,
      labelSource: r.labelSource,
      provenance: r.provenance,
      ...(r.derivedFrom === undefined ? {} : { derivedFrom: r.derivedFrom }),
    };
  }
}
