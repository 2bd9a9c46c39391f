// The wire shapes are written twice, as TypeScript types (types.ts) and as JSON Schema (schema.ts);
// these checks fail the typecheck and the run when one names a field the other does not.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  brokerProgressSchema,
  brokerRequestSchema,
  type CancelRequest,
  type ListRequest,
  type ManifestRow,
  manifestRowSchema,
  type RunProgress,
  type RunRequest,
} from '../src/index';

type Branch<I extends number> = (typeof brokerRequestSchema)['oneOf'][I]['properties'];
// Fields a manifest row may carry that only hide it from agents: presentation, not validated.
type HidingFields = 'origin' | 'developer' | 'actors' | 'origins_refused' | 'origins_required' | 'grant';

describe('the types and the JSON Schema name the same fields', () => {
  it('a manifest row, timeoutMs included', () => {
    expectTypeOf<keyof typeof manifestRowSchema.properties>().toEqualTypeOf<
      Exclude<keyof ManifestRow, HidingFields>
    >();
    expect(manifestRowSchema.properties.timeoutMs).toEqual({ type: 'integer', minimum: 1 });
  });

  it('the list, run and cancel requests', () => {
    expectTypeOf<keyof Branch<1>>().toEqualTypeOf<keyof ListRequest>();
    expectTypeOf<keyof Branch<2>>().toEqualTypeOf<keyof RunRequest>();
    expectTypeOf<keyof Branch<3>>().toEqualTypeOf<keyof CancelRequest>();
    expect(brokerRequestSchema.oneOf.map((b) => b.properties.op.const)).toEqual([
      'hello',
      'list',
      'run',
      'cancel',
    ]);
  });

  it('a progress line', () => {
    expectTypeOf<keyof typeof brokerProgressSchema.properties.progress.properties>().toEqualTypeOf<
      keyof RunProgress
    >();
    expect(brokerProgressSchema.required).toEqual(['protocol', 'id', 'progress']);
  });
});
