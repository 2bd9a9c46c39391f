import type { Ceiling } from './ceiling';
import { type Atom, type Clause, type Label, normalize, normalizeClauses } from './label';

/** Why a value could not be read as a label or ceiling. */
export type ReadIssueCode =
  | 'invalid_type'
  | 'unknown_key'
  | 'invalid_atom'
  | 'empty_clause'
  | 'too_deep'
  | 'not_json';

/** One problem found while reading a label or ceiling, with the path to it. */
export interface ReadIssue {
  readonly code: ReadIssueCode;
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * The result of {@link readLabel}: a label, no label at all, or a label that is present but unreadable.
 * The last is never the same as absent: an answer whose label cannot be read is withheld.
 */
export type LabelRead =
  | { readonly status: 'label'; readonly label: Label }
  | { readonly status: 'absent' }
  | { readonly status: 'malformed'; readonly issues: readonly ReadIssue[] };

/** The result of {@link readCeiling}: a ceiling (maybe `undefined`, none), or a refusal. */
export type CeilingRead =
  | { readonly ok: true; readonly value: Ceiling }
  | { readonly ok: false; readonly code: 'ceiling_unavailable'; readonly issues: readonly ReadIssue[] };

/** How deep an object atom may nest; deeper values are refused rather than walked. */
export const MAX_ATOM_DEPTH = 16;

// One mutable stack per read: a child's key is pushed and popped, and copied only into an issue.
type Path = (string | number)[];

function within<T>(path: Path, key: string | number, fn: () => T): T {
  path.push(key);
  try {
    return fn();
  } finally {
    path.pop();
  }
}

function issue(issues: ReadIssue[], code: ReadIssueCode, path: Path, message: string): void {
  issues.push({ code, path: [...path], message });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function checkJson(value: unknown, path: Path, depth: number, issues: ReadIssue[]): boolean {
  if (depth > MAX_ATOM_DEPTH) {
    issue(issues, 'too_deep', path, `An atom nests deeper than ${MAX_ATOM_DEPTH} levels; flatten the atom.`);
    return false;
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return true;
    issue(issues, 'not_json', path, 'An atom holds a non-finite number; use a finite one.');
    return false;
  }
  if (Array.isArray(value))
    return value.every((v, i) => within(path, i, () => checkJson(v, path, depth + 1, issues)));
  if (isPlainObject(value)) {
    return Object.keys(value).every((k) =>
      within(path, k, () => checkJson(value[k], path, depth + 1, issues)),
    );
  }
  issue(
    issues,
    'not_json',
    path,
    `An atom holds ${describe(value)}, which is not JSON; use JSON values only.`,
  );
  return false;
}

function readAtom(value: unknown, path: Path, issues: ReadIssue[]): Atom | undefined {
  if (typeof value === 'string') {
    if (value.length > 0) return value;
    issue(issues, 'invalid_atom', path, 'An atom is the empty string; name a principal.');
    return undefined;
  }
  if (isPlainObject(value)) {
    if (Object.hasOwn(value, 'anyOf')) {
      issue(
        issues,
        'invalid_atom',
        path,
        'An object atom has an `anyOf` key, which only a clause may have; rename the key.',
      );
      return undefined;
    }
    return checkJson(value, path, 1, issues) ? (value as Atom) : undefined;
  }
  issue(
    issues,
    'invalid_atom',
    path,
    `Expected an atom (a non-empty string or a plain JSON object), found ${describe(value)}.`,
  );
  return undefined;
}

function readClause(value: unknown, path: Path, issues: ReadIssue[]): Clause | undefined {
  if (!isPlainObject(value) || !Object.hasOwn(value, 'anyOf')) return readAtom(value, path, issues);
  const extra = Object.keys(value).filter((k) => k !== 'anyOf');
  if (extra.length > 0) {
    issue(
      issues,
      'unknown_key',
      path,
      `A clause holds keys besides \`anyOf\` (${extra.length}); a clause is \`{ anyOf: atoms }\` only.`,
    );
    return undefined;
  }
  const alts = value.anyOf;
  if (!Array.isArray(alts)) {
    issue(
      issues,
      'invalid_type',
      [...path, 'anyOf'],
      `Expected \`anyOf\` to be an array of atoms, found ${describe(alts)}.`,
    );
    return undefined;
  }
  if (alts.length === 0) {
    // An empty disjunction is "false": as a ceiling clause it would admit every label.
    issue(
      issues,
      'empty_clause',
      [...path, 'anyOf'],
      'A clause has an empty `anyOf`; list at least one atom.',
    );
    return undefined;
  }
  const atoms: Atom[] = [];
  let ok = true;
  alts.forEach((a, i) => {
    const atom = within(path, 'anyOf', () => within(path, i, () => readAtom(a, path, issues)));
    if (atom === undefined) ok = false;
    else atoms.push(atom);
  });
  return ok ? { anyOf: atoms } : undefined;
}

function readList<T>(
  value: unknown,
  path: Path,
  issues: ReadIssue[],
  item: (v: unknown, p: Path, i: ReadIssue[]) => T | undefined,
): T[] | undefined {
  if (!Array.isArray(value)) {
    issue(issues, 'invalid_type', path, `Expected an array, found ${describe(value)}.`);
    return undefined;
  }
  const out: T[] = [];
  let ok = true;
  value.forEach((v, i) => {
    const r = within(path, i, () => item(v, path, issues));
    if (r === undefined) ok = false;
    else out.push(r);
  });
  return ok ? out : undefined;
}

/**
 * Reads an untrusted value (a host's `ifc` field, say) as a label. `undefined` is absent; anything else
 * must be `{ confidentiality?: Clause[], integrity?: Atom[] }` with no other key, or it is malformed
 * (`null` included: a field that is present but unreadable is never treated as absent). A readable
 * label comes back normalized.
 */
export function readLabel(value: unknown): LabelRead {
  if (value === undefined) return { status: 'absent' };
  const issues: ReadIssue[] = [];
  if (!isPlainObject(value)) {
    issue(
      issues,
      'invalid_type',
      [],
      `Expected a label object { confidentiality?, integrity? }, found ${describe(value)}.`,
    );
    return { status: 'malformed', issues };
  }
  const extra = Object.keys(value).filter((k) => k !== 'confidentiality' && k !== 'integrity');
  for (const k of extra) {
    // Refused rather than ignored: an unknown key may be a restriction this reader does not understand.
    issue(
      issues,
      'unknown_key',
      [k],
      'A label holds an unknown key; a label has only `confidentiality` and `integrity`.',
    );
  }
  const confidentiality =
    value.confidentiality === undefined
      ? []
      : readList(value.confidentiality, ['confidentiality'], issues, readClause);
  const integrity =
    value.integrity === undefined ? [] : readList(value.integrity, ['integrity'], issues, readAtom);
  if (issues.length > 0 || confidentiality === undefined || integrity === undefined) {
    return { status: 'malformed', issues };
  }
  return { status: 'label', label: normalize({ confidentiality, integrity }) };
}

/**
 * Reads an untrusted value as a ceiling. `undefined` is no ceiling; an array of clauses is a ceiling
 * (normalized); anything else, `null` included, refuses with `ceiling_unavailable`, and the caller must
 * refuse the call rather than run it unbounded.
 */
export function readCeiling(value: unknown): CeilingRead {
  if (value === undefined) return { ok: true, value: undefined };
  const issues: ReadIssue[] = [];
  const clauses = readList(value, [], issues, readClause);
  if (clauses === undefined) return { ok: false, code: 'ceiling_unavailable', issues };
  return { ok: true, value: normalizeClauses(clauses) };
}

/** Whether a value reads as a ceiling, without building its normal form (for checks on every answer). */
export function isReadableCeiling(value: unknown): value is Ceiling {
  return value === undefined || readList(value, [], [], readClause) !== undefined;
}
