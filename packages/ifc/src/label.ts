// The label model (notes/origins.md, "Labels"): confidentiality is a conjunction of clauses, each clause a
// disjunction of atoms; integrity is a set of atoms. Every operation here is pure and never reads content.

/** A JSON value, as an object atom may hold. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;

/** A plain JSON object. */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/**
 * A principal or category named in a label: a string, or a plain JSON object. Atoms are compared by
 * value (object key order does not matter). An object atom may not have an `anyOf` key: that key marks a
 * disjunction clause.
 */
export type Atom = string | JsonObject;

/** A disjunction: data under this clause may be read by a reader cleared for any one of the atoms. */
export interface AnyOfClause {
  readonly anyOf: readonly Atom[];
}

/** One conjunct of a confidentiality label: an atom, or `{ anyOf: atoms }`. */
export type Clause = Atom | AnyOfClause;

/**
 * An information-flow label. `confidentiality` is a conjunction of clauses (more clauses: more secret);
 * `integrity` is the set of endorsements the data carries (more atoms: more trusted).
 */
export interface Label {
  readonly confidentiality: readonly Clause[];
  readonly integrity: readonly Atom[];
}

/** The label of data anyone may read and nobody endorses. */
export const PUBLIC: Label = Object.freeze({
  confidentiality: Object.freeze([]) as readonly Clause[],
  integrity: Object.freeze([]) as readonly Atom[],
});

/** The atom that marks a label which could not be read. Reserved: see {@link LABEL_READ_FAILED}. */
export const READ_FAILED_ATOM: Atom = Object.freeze({ 'harness.ifc': 'label-read-failed' });

/**
 * The label of data whose own label could not be read. It fits no declared ceiling, and anything joined
 * with it fits none either, so an unreadable label can only ever make a run stricter.
 */
export const LABEL_READ_FAILED: Label = Object.freeze({
  confidentiality: Object.freeze([READ_FAILED_ATOM]) as readonly Clause[],
  integrity: Object.freeze([]) as readonly Atom[],
});

const READ_FAILED_KEY = 'o{"harness.ifc":"label-read-failed"}';

/** Whether a clause is a disjunction (`{ anyOf }`) rather than a lone atom. */
export function isAnyOf(clause: Clause): clause is AnyOfClause {
  return typeof clause === 'object' && clause !== null && Object.hasOwn(clause, 'anyOf');
}

function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v as JsonValue)).join(',')}]`;
  const obj = value as JsonObject;
  const keys = Object.keys(obj).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k] as JsonValue)}`).join(',')}}`;
}

/** Whether a value's object keys are already sorted at every depth (then it needs no rebuilding). */
function isCanonical(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every((v) => isCanonical(v as JsonValue));
  const obj = value as JsonObject;
  let prev: string | undefined;
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    if (prev !== undefined && prev >= k) return false;
    if (!isCanonical(obj[k] as JsonValue)) return false;
    prev = k;
  }
  return true;
}

function canonicalValue(value: JsonValue): JsonValue {
  if (isCanonical(value)) return value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => canonicalValue(v as JsonValue));
  const obj = value as JsonObject;
  const out: Record<string, JsonValue> = {};
  for (const k of Object.keys(obj).sort()) {
    const v = canonicalValue(obj[k] as JsonValue);
    // defineProperty for `__proto__` only, so it stays an ordinary own key rather than a prototype.
    if (k === '__proto__') {
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    } else out[k] = v;
  }
  return out;
}

/**
 * An opaque comparison key for an atom: equal atoms (by value, object key order ignored) have equal keys,
 * and different atoms different ones. Labels sort their atoms by it.
 */
export function atomKey(atom: Atom): string {
  if (typeof atom === 'string') return `s${atom}`;
  // With keys already sorted at every depth, the native serializer gives the canonical text.
  return `o${isCanonical(atom) ? JSON.stringify(atom) : canonicalJson(atom)}`;
}

/** The atoms of a clause, a lone atom being a disjunction of one. */
export function clauseAtoms(clause: Clause): readonly Atom[] {
  return isAnyOf(clause) ? clause.anyOf : [clause as Atom];
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Canonical atoms of a set: deduplicated by value, sorted by key. */
function uniqueAtoms(atoms: Iterable<Atom>): { keys: string[]; atoms: Atom[] } {
  const byKey = new Map<string, Atom>();
  for (const a of atoms) {
    const k = atomKey(a);
    if (!byKey.has(k)) byKey.set(k, a);
  }
  const keys = [...byKey.keys()].sort(compareKeys);
  return { keys, atoms: keys.map((k) => canonicalValue(byKey.get(k) as JsonValue) as Atom) };
}

function normalizeClause(clause: Clause): { key: string; clause: Clause } {
  const { keys, atoms } = uniqueAtoms(clauseAtoms(clause));
  if (atoms.length === 1) return { key: `a${keys[0]}`, clause: atoms[0] as Atom };
  return { key: `o${JSON.stringify(keys)}`, clause: { anyOf: atoms } };
}

/** Normalizes a list of clauses: each clause canonical, duplicates dropped, sorted. */
export function normalizeClauses(clauses: readonly Clause[]): Clause[] {
  const byKey = new Map<string, Clause>();
  for (const c of clauses) {
    const n = normalizeClause(c);
    if (!byKey.has(n.key)) byKey.set(n.key, n.clause);
  }
  return [...byKey.keys()].sort(compareKeys).map((k) => byKey.get(k) as Clause);
}

/**
 * The canonical form of a label: atoms by value with sorted object keys, `{ anyOf: [a] }` read as `a`,
 * duplicate clauses and atoms dropped, everything sorted. Idempotent and blind to order, so two labels
 * mean the same when their normal forms serialize alike. Subsumed clauses are kept (no absorption): the
 * normal form is of the text, not of the formula.
 */
export function normalize(label: Label): Label {
  return {
    confidentiality: normalizeClauses(label.confidentiality),
    integrity: uniqueAtoms(label.integrity).atoms,
  };
}

/** The atom keys of a clause, as a set. */
export function clauseKeySet(clause: Clause): Set<string> {
  return new Set(clauseAtoms(clause).map(atomKey));
}

function isSubset(small: ReadonlySet<string>, big: ReadonlySet<string>): boolean {
  if (small.size > big.size) return false;
  for (const k of small) if (!big.has(k)) return false;
  return true;
}

/**
 * Whether the clauses of `target` imply every clause of `source`: each source clause is subsumed by some
 * target clause (the target clause's atoms are a subset of it). For these monotone formulas subsumption
 * is exactly implication.
 */
export function clausesImply(target: readonly Clause[], source: readonly Clause[]): boolean {
  const t = target.map(clauseKeySet);
  return source.every((c) => {
    const s = clauseKeySet(c);
    return t.some((tc) => isSubset(tc, s));
  });
}

/**
 * Whether data labelled `from` may flow to a place labelled `to`: `to` is at least as confidential (its
 * clauses imply every clause of `from`) and claims no integrity `from` lacks. Reflexive and transitive.
 */
export function flowsTo(from: Label, to: Label): boolean {
  if (!clausesImply(to.confidentiality, from.confidentiality)) return false;
  const fromIntegrity = new Set(from.integrity.map(atomKey));
  return to.integrity.every((a) => fromIntegrity.has(atomKey(a)));
}

/**
 * The least upper bound of two labels: the confidentiality clauses of both (a conjunction, so never
 * looser than either side), and only the integrity both sides carry. The result is normalized.
 */
export function join(a: Label, b: Label): Label {
  const bIntegrity = new Set(b.integrity.map(atomKey));
  return {
    confidentiality: normalizeClauses([...a.confidentiality, ...b.confidentiality]),
    integrity: uniqueAtoms(a.integrity.filter((x) => bIntegrity.has(atomKey(x)))).atoms,
  };
}

/**
 * The join of many labels, such as every call's input label in a batch. The join of none is
 * {@link PUBLIC}.
 */
export function joinAll(labels: readonly Label[]): Label {
  const [first, ...rest] = labels;
  if (first === undefined) return normalize(PUBLIC);
  // One normalization over every clause, not one per step as a fold of join would do.
  let integrity = uniqueAtoms(first.integrity).atoms;
  for (const l of rest) {
    const keep = new Set(l.integrity.map(atomKey));
    integrity = integrity.filter((a) => keep.has(atomKey(a)));
  }
  return { confidentiality: normalizeClauses(labels.flatMap((l) => l.confidentiality)), integrity };
}

/** Whether a label carries the read-failed marker in its confidentiality (see {@link LABEL_READ_FAILED}). */
export function carriesReadFailedMarker(label: Label): boolean {
  const marker = READ_FAILED_KEY;
  return label.confidentiality.some((c) => clauseAtoms(c).some((a) => atomKey(a) === marker));
}
