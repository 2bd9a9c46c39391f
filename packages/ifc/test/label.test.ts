import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect, it } from 'vitest';
import {
  atomKey,
  carriesReadFailedMarker,
  fits,
  flowsTo,
  join,
  joinAll,
  LABEL_READ_FAILED,
  type Label,
  meetCeilings,
  normalize,
  PUBLIC,
  READ_FAILED_ATOM,
} from '../src/index';
import { atom, ceiling, declaredCeiling, label, text } from './arbitraries';

const runs = { numRuns: fcRuns(500) };
const L = (confidentiality: Label['confidentiality'], integrity: Label['integrity'] = []): Label => ({
  confidentiality,
  integrity,
});

describe('normalize', () => {
  it('reads a one-atom disjunction as the atom, sorts and deduplicates', () => {
    expect(
      normalize(L([{ anyOf: ['bob'] }, 'alice', { anyOf: ['carol', 'alice', 'carol'] }, 'bob'], ['x', 'x'])),
    ).toEqual(L(['alice', 'bob', { anyOf: ['alice', 'carol'] }], ['x']));
  });

  it('compares object atoms by value, whatever their key order', () => {
    const n = normalize(
      L([
        { space: 's1', role: 'r' },
        { role: 'r', space: 's1' },
      ]),
    );
    expect(n.confidentiality).toHaveLength(1);
    expect(JSON.stringify(n.confidentiality[0])).toBe('{"role":"r","space":"s1"}');
  });

  test.prop([label], runs)('is idempotent', (l) => {
    expect(text(normalize(normalize(l)))).toBe(text(normalize(l)));
  });

  test.prop([label, fc.infiniteStream(fc.nat())], runs)('is blind to clause and atom order', (l, seeds) => {
    const shuffle = <T>(xs: readonly T[]): T[] =>
      xs
        .map((x) => ({ x, k: seeds.next().value as number }))
        .sort((a, b) => a.k - b.k)
        .map((e) => e.x);
    const shuffled: Label = {
      confidentiality: shuffle(l.confidentiality).map((c) =>
        typeof c === 'object' && 'anyOf' in c ? { anyOf: shuffle(c.anyOf as never[]) } : c,
      ),
      integrity: shuffle(l.integrity),
    };
    expect(text(normalize(shuffled))).toBe(text(normalize(l)));
  });
});

describe('flowsTo', () => {
  it('lets public data flow to a secret place, not the reverse', () => {
    expect(flowsTo(PUBLIC, L(['alice']))).toBe(true);
    expect(flowsTo(L(['alice']), PUBLIC)).toBe(false);
  });

  it('reads a disjunction as looser than any one of its atoms', () => {
    expect(flowsTo(L([{ anyOf: ['alice', 'bob'] }]), L(['alice']))).toBe(true);
    expect(flowsTo(L(['alice']), L([{ anyOf: ['alice', 'bob'] }]))).toBe(false);
  });

  it('never lets a place claim integrity its source lacks', () => {
    expect(flowsTo(L([], ['signed']), L([], []))).toBe(true);
    expect(flowsTo(L([], []), L([], ['signed']))).toBe(false);
  });

  test.prop([label], runs)('is reflexive', (a) => {
    expect(flowsTo(a, a)).toBe(true);
  });

  test.prop([label, label, label], runs)('is transitive', (a, b, c) => {
    // Most random triples are unrelated; also check the chain a ⊑ a⊔b ⊑ a⊔b⊔c, which always holds.
    if (flowsTo(a, b) && flowsTo(b, c)) expect(flowsTo(a, c)).toBe(true);
    const ab = join(a, b);
    const abc = join(ab, c);
    expect(flowsTo(a, ab) && flowsTo(ab, abc)).toBe(true);
    expect(flowsTo(a, abc)).toBe(true);
  });
});

describe('join', () => {
  it('concatenates confidentiality and keeps only shared integrity', () => {
    expect(join(L(['alice'], ['signed', 'x']), L([{ anyOf: ['bob', 'carol'] }], ['x']))).toEqual(
      L(['alice', { anyOf: ['bob', 'carol'] }], ['x']),
    );
  });

  it('joins nothing to public', () => {
    expect(joinAll([])).toEqual(PUBLIC);
  });

  test.prop([label, label], runs)('is commutative', (a, b) => {
    expect(text(join(a, b))).toBe(text(join(b, a)));
  });

  test.prop([label, label, label], runs)('is associative', (a, b, c) => {
    expect(text(join(join(a, b), c))).toBe(text(join(a, join(b, c))));
  });

  test.prop([label], runs)('is idempotent', (a) => {
    expect(text(join(a, a))).toBe(text(normalize(a)));
  });

  test.prop([label, label], runs)('is an upper bound of both sides (never loosens)', (a, b) => {
    expect(flowsTo(a, join(a, b))).toBe(true);
    expect(flowsTo(b, join(a, b))).toBe(true);
  });

  test.prop([label, label, label], runs)('is the least upper bound', (a, b, c) => {
    // An upper bound of a and b built from c, so the premise holds often, not only by chance.
    const upper = join(join(a, b), c);
    expect(flowsTo(join(a, b), upper)).toBe(true);
    if (flowsTo(a, c) && flowsTo(b, c)) expect(flowsTo(join(a, b), c)).toBe(true);
  });
});

describe('fits', () => {
  it('admits everything under no ceiling and only public data under []', () => {
    expect(fits(L(['alice']), undefined)).toBe(true);
    expect(fits(PUBLIC, [])).toBe(true);
    expect(fits(L(['alice']), [])).toBe(false);
  });

  it('admits a clause when some ceiling clause subsumes it', () => {
    expect(fits(L([{ anyOf: ['alice', 'bob'] }]), ['alice'])).toBe(true);
    expect(fits(L(['alice']), [{ anyOf: ['alice', 'bob'] }])).toBe(false);
    expect(fits(L(['alice', 'bob']), ['alice'])).toBe(false);
    expect(fits(L(['alice', 'bob']), ['bob', 'alice'])).toBe(true);
  });

  it('ignores integrity', () => {
    expect(fits(L([], ['anything']), [])).toBe(true);
  });

  test.prop([label, declaredCeiling], runs)('agrees with flowsTo on confidentiality', (l, c) => {
    expect(fits(l, c)).toBe(flowsTo({ confidentiality: l.confidentiality, integrity: [] }, L(c)));
  });

  test.prop([label, label, ceiling], runs)('fits(join(a, b), C) ⇔ fits(a, C) ∧ fits(b, C)', (a, b, c) => {
    expect(fits(join(a, b), c)).toBe(fits(a, c) && fits(b, c));
  });

  test.prop([label, ceiling], runs)('does not change under normalize', (l, c) => {
    expect(fits(normalize(l), c)).toBe(fits(l, c));
  });
});

describe('meetCeilings', () => {
  it('takes the pairwise union of alternatives, never an intersection', () => {
    expect(meetCeilings(['alice'], ['bob'])).toEqual([{ anyOf: ['alice', 'bob'] }]);
    // Under an intersection this label would fit the meet, though it fits neither ceiling alone.
    expect(fits(L([{ anyOf: ['alice', 'bob'] }]), meetCeilings(['alice'], ['bob']))).toBe(true);
    expect(fits(L(['alice']), meetCeilings(['alice'], ['bob']))).toBe(false);
  });

  it('treats no ceiling as the identity and [] as absorbing', () => {
    expect(meetCeilings(undefined, undefined)).toBeUndefined();
    expect(meetCeilings(undefined, ['bob', 'alice'])).toEqual(['alice', 'bob']);
    expect(meetCeilings(['alice'], [])).toEqual([]);
  });

  test.prop([label, ceiling, ceiling], runs)(
    'fits(L, meet(C1, C2)) ⇔ fits(L, C1) ∧ fits(L, C2)',
    (l, c1, c2) => {
      expect(fits(l, meetCeilings(c1, c2))).toBe(fits(l, c1) && fits(l, c2));
    },
  );

  test.prop([ceiling, ceiling], runs)('is commutative', (c1, c2) => {
    expect(text(meetCeilings(c1, c2))).toBe(text(meetCeilings(c2, c1)));
  });
});

describe('the read-failed marker', () => {
  it('is carried by LABEL_READ_FAILED', () => {
    expect(carriesReadFailedMarker(LABEL_READ_FAILED)).toBe(true);
    expect(carriesReadFailedMarker(PUBLIC)).toBe(false);
  });

  it('does not fit even a ceiling that names the marker itself', () => {
    expect(fits(LABEL_READ_FAILED, [READ_FAILED_ATOM])).toBe(false);
  });

  test.prop([label, declaredCeiling], runs)('never fits a declared ceiling, joined with anything', (l, c) => {
    expect(fits(LABEL_READ_FAILED, c)).toBe(false);
    expect(fits(join(l, LABEL_READ_FAILED), c)).toBe(false);
    expect(fits(join(LABEL_READ_FAILED, l), meetCeilings(c, [READ_FAILED_ATOM]))).toBe(false);
  });

  test.prop([atom], runs)('is not an ordinary atom of the pool', (a) => {
    expect(carriesReadFailedMarker(L([a]))).toBe(false);
  });
});

describe('joinAll', () => {
  test.prop([fc.array(label, { maxLength: 6 })], runs)('equals folding join over the labels', (ls) => {
    expect(text(joinAll(ls))).toBe(text(ls.reduce(join, ls[0] ?? PUBLIC)));
  });
});

describe('atomKey', () => {
  it('keys the read-failed marker as the marker check expects', () => {
    expect(
      carriesReadFailedMarker({ confidentiality: [{ 'harness.ifc': 'label-read-failed' }], integrity: [] }),
    ).toBe(true);
  });

  test.prop([atom, atom], runs)('is equal exactly for atoms equal by value', (a, b) => {
    expect(atomKey(a) === atomKey(b)).toBe(
      JSON.stringify(normalize({ confidentiality: [a], integrity: [] })) ===
        JSON.stringify(normalize({ confidentiality: [b], integrity: [] })),
    );
  });

  it('never confuses a string atom with an object atom', () => {
    expect(atomKey('{"a":1}')).not.toBe(atomKey({ a: 1 }));
  });
});
