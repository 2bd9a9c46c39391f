// Shared fast-check arbitraries: atoms drawn from a small pool so that clauses overlap and collide often.
import { fc } from '@harness/test-utils/property';
import type { Atom, Ceiling, Clause, Label } from '../src/index';

export const atom: fc.Arbitrary<Atom> = fc.oneof(
  fc.constantFrom('alice', 'bob', 'carol', 'dave', 'erin'),
  // The same object atom with its keys in either order: equal by value.
  fc
    .tuple(fc.constantFrom('s1', 's2'), fc.constantFrom('r', 'w'), fc.boolean())
    .map(([space, role, flip]) => (flip ? { space, role } : { role, space })),
);

export const clause: fc.Arbitrary<Clause> = fc.oneof(
  atom,
  fc.array(atom, { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
);

export const label: fc.Arbitrary<Label> = fc.record({
  confidentiality: fc.array(clause, { maxLength: 4 }),
  integrity: fc.array(atom, { maxLength: 3 }),
});

export const declaredCeiling: fc.Arbitrary<readonly Clause[]> = fc.array(clause, { maxLength: 4 });

export const ceiling: fc.Arbitrary<Ceiling> = fc.option(declaredCeiling, { nil: undefined });

/** A label's canonical text: equal for labels equal up to order, duplicates and key order. */
export function text(value: unknown): string {
  return JSON.stringify(value);
}
