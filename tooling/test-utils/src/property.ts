// `test.prop(arbitraries, parameters)(name, predicate)`: a fast-check property as one vitest test,
// named with the seed it runs with (`… (with seed=-45145375)`), so a failure's title says how to
// reproduce it. The same call shape as @fast-check/vitest, which the tests used before: that
// package builds its `test` from every chain of vitest's modifiers when it is imported, about
// 3 CPU-seconds in each test file under vitest 4, more than most of our property files take to run.
import fc from 'fast-check';
import { test as vitestTest } from 'vitest';

export { fc };

type Arbitraries = readonly fc.Arbitrary<unknown>[];
type Values<A extends Arbitraries> = { [K in keyof A]: A[K] extends fc.Arbitrary<infer T> ? T : never };
type Predicate<A extends Arbitraries> = (...values: Values<A>) => unknown;

/**
 * A property over `arbitraries`: the test it declares runs the predicate on generated values with
 * `parameters` (numRuns and the rest), seeded by `parameters.seed`, else the global seed the setup
 * file configured (`FC_SEED`), and fails with fast-check's report (seed, path, counterexample).
 */
function prop<const A extends Arbitraries>(arbitraries: A, parameters: fc.Parameters<Values<A>> = {}) {
  return (name: string, predicate: Predicate<A>, timeout?: number): void => {
    const seed =
      parameters.seed ?? fc.readConfigureGlobal().seed ?? Date.now() ^ (Math.random() * 0x1_0000_0000);
    // fast-check's own overloads are typed per arity; the values reach the predicate as generated.
    const spread = arbitraries as unknown as [fc.Arbitrary<unknown>];
    // As fast-check's own: a predicate fails by throwing or by returning false.
    const property = fc.asyncProperty(
      ...spread,
      async (...values: unknown[]) => (await predicate(...(values as Values<A>))) !== false,
    );
    const options = { ...parameters, seed } as unknown as fc.Parameters<[unknown, ...unknown[]]>;
    vitestTest(`${name} (with seed=${seed})`, () => fc.assert(property, options), timeout);
  };
}

/** vitest's `test`, with `.prop` for properties. */
export const test: typeof vitestTest & { prop: typeof prop } = Object.assign(
  (...args: Parameters<typeof vitestTest>) => vitestTest(...args),
  vitestTest,
  { prop },
);
