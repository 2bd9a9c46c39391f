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

/** How many documents, and how many bytes of content, a {@link ReferentStore} holds at most. */
export interface ReferentBounds {
  /** Default {@link REFERENT_BOUNDS}`.maxCount` (1000). */
  readonly maxCount?: number;
  /** Counted as the content's JSON text in UTF-8; default {@link REFERENT_BOUNDS}`.maxBytes` (16 MiB). */
  readonly maxBytes?: number;
}

/** The default bounds of a run's referent store: the latest 1000 documents, 16 MiB of content. */
export const REFERENT_BOUNDS = Object.freeze({ maxCount: 1000, maxBytes: 16 * 1024 * 1024 });

/** What {@link ReferentStore.lookup} finds under an id. */
export type ReferentLookup =
  | { readonly status: 'held'; readonly referent: DocumentReferent }
  /** Held once, dropped oldest-first past the store's bounds: cite a newer document instead. */
  | { readonly status: 'expired'; readonly id: string; readonly message: string }
  | { readonly status: 'unknown'; readonly id: string };

/** UTF-8 length of a string without Node's Buffer (this package runs in a browser too). */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const DOC_ID = /^doc-([1-9][0-9]{0,15})$/;

function readBound(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new IfcError(
      'invalid_bound',
      `${what} must be a whole number of at least 1 (found ${String(value)}).`,
    );
  }
  return value;
}

/**
 * A run's held documents. Ids are `doc-1`, `doc-2`, … in minting order, so a run's ids are the same
 * every time it makes the same calls in the same order. One store per run.
 *
 * The store is bounded in count and in bytes ({@link REFERENT_BOUNDS} by default): past either bound
 * the oldest documents are dropped first, and an id that named one answers `expired` from
 * {@link lookup}, never another document. A single document larger than the byte bound is still held
 * (alone) so the latest answer can always be cited.
 */
export class ReferentStore {
  readonly #byId = new Map<string, DocumentReferent>();
  readonly #bytes = new Map<string, number>();
  readonly #maxCount: number;
  readonly #maxBytes: number;
  #heldBytes = 0;
  #next = 1;
  /** Every id numbered at most this was dropped. */
  #droppedThrough = 0;

  /** @throws IfcError `invalid_bound` for a bound that is not a whole number of at least 1. */
  constructor(bounds: ReferentBounds = {}) {
    this.#maxCount = readBound(bounds.maxCount, REFERENT_BOUNDS.maxCount, 'maxCount');
    this.#maxBytes = readBound(bounds.maxBytes, REFERENT_BOUNDS.maxBytes, 'maxBytes');
  }

  /**
   * Holds an admitted answer as a document. A document derived from another's result takes the join of
   * both labels: what was minted from labelled data is never labelled looser than its source.
   * @throws IfcError `not_admitted` for a withheld measurement, `expired_referent` for a `derivedFrom`
   * this store dropped past its bounds, `unknown_referent` for one it never held, `invalid_provenance`
   * for a provenance without command or actor.
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
      if (parent === undefined && this.#wasDropped(input.derivedFrom)) {
        throw new IfcError(
          'expired_referent',
          `derivedFrom names ${input.derivedFrom}, which this run's store dropped past its bounds; join the ` +
            "run's context label into the measurement instead (it covers every document the run admitted).",
        );
      }
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
    const bytes = utf8Length(JSON.stringify(measurement.answer) ?? 'null');
    this.#byId.set(id, referent);
    this.#bytes.set(id, bytes);
    this.#heldBytes += bytes;
    this.#evict();
    return referent;
  }

  /** Drops the oldest documents until both bounds hold, always keeping the newest. */
  #evict(): void {
    while (this.#byId.size > 1 && (this.#byId.size > this.#maxCount || this.#heldBytes > this.#maxBytes)) {
      const oldest = this.#byId.keys().next().value as string;
      this.#heldBytes -= this.#bytes.get(oldest) ?? 0;
      this.#byId.delete(oldest);
      this.#bytes.delete(oldest);
      this.#droppedThrough = Number(oldest.slice(4));
    }
  }

  #wasDropped(id: string): boolean {
    const n = DOC_ID.exec(id)?.[1];
    return n !== undefined && Number(n) <= this.#droppedThrough;
  }

  /** The document held under `id`, or `undefined` (never held, or dropped: see {@link lookup}). */
  get(id: string): DocumentReferent | undefined {
    return this.#byId.get(id);
  }

  /** Whether `id` is held, was held and dropped past the store's bounds (`expired`), or is unknown. */
  lookup(id: string): ReferentLookup {
    const referent = this.#byId.get(id);
    if (referent !== undefined) return { status: 'held', referent };
    if (this.#wasDropped(id)) {
      return {
        status: 'expired',
        id,
        message: `${id} expired: the run keeps its latest ${this.#maxCount} documents (at most ${this.#maxBytes} bytes), and this one is older. Run the command again to get a fresh document.`,
      };
    }
    return { status: 'unknown', id };
  }

  /** How many documents, and how many bytes of content, the store holds now. */
  get size(): { count: number; bytes: number } {
    return { count: this.#byId.size, bytes: this.#heldBytes };
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
