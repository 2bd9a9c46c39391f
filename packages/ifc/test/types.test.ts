import { describe, expectTypeOf, it } from 'vitest';
import type { Authorization, Ceiling, Label, Measurement, Withheld } from '../src/index';
import { measure, PUBLIC } from '../src/index';

describe('public types', () => {
  it('gives a withheld result no way to hold the answer', () => {
    expectTypeOf<Withheld>().not.toHaveProperty('answer');
    expectTypeOf<keyof Withheld>().toEqualTypeOf<'status' | 'reasonCode'>();
  });

  it('keeps the answer type through measure', () => {
    const m = measure({ ok: true as const, body: 1 }, { queryLabel: PUBLIC, ceiling: undefined });
    expectTypeOf(m).toEqualTypeOf<Measurement<{ ok: true; body: number }>>();
    if (m.status === 'admitted') expectTypeOf(m.answer.body).toBeNumber();
  });

  it('types a ceiling as none, public-only or clauses, and a label as two lists', () => {
    expectTypeOf<undefined>().toExtend<Ceiling>();
    expectTypeOf<[]>().toExtend<Ceiling>();
    expectTypeOf<Label>().toHaveProperty('confidentiality');
    expectTypeOf<Label>().toHaveProperty('integrity');
  });

  it('lets a warning appear only on an allowed decision', () => {
    type Denied = Extract<Authorization, { allowed: false }>;
    expectTypeOf<Denied>().not.toHaveProperty('warning');
  });
});
