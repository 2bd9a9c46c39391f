import {
  type Clause,
  carriesReadFailedMarker,
  clauseAtoms,
  clausesImply,
  type Label,
  normalizeClauses,
} from './label';

/**
 * The most a run may observe. `undefined`: no ceiling, every readable label fits. `[]`: public data
 * only. Otherwise a conjunction of clauses, read like a label's confidentiality: a label fits when the
 * ceiling's clauses imply each of its clauses.
 */
export type Ceiling = readonly Clause[] | undefined;

/**
 * Whether a label fits under a ceiling: each of its confidentiality clauses is subsumed by some ceiling
 * clause (that clause's alternatives are a subset of the label clause's). Integrity plays no part. A
 * label carrying the read-failed marker fits no declared ceiling; with no ceiling everything fits.
 */
export function fits(label: Label, ceiling: Ceiling): boolean {
  if (ceiling === undefined) return true;
  if (carriesReadFailedMarker(label)) return false;
  return clausesImply(ceiling, label.confidentiality);
}

/**
 * The meet of two ceilings: what fits under it is exactly what fits under both. Each pair of clauses is
 * joined by the union of its alternatives (the disjunction of the two ceilings, in clause form); an
 * intersection would admit labels one of the ceilings refuses. No ceiling is the identity.
 */
export function meetCeilings(a: Ceiling, b: Ceiling): Ceiling {
  if (a === undefined) return b === undefined ? undefined : normalizeClauses(b);
  if (b === undefined) return normalizeClauses(a);
  const out: Clause[] = [];
  for (const ca of a) {
    for (const cb of b) out.push({ anyOf: [...clauseAtoms(ca), ...clauseAtoms(cb)] });
  }
  return normalizeClauses(out);
}
