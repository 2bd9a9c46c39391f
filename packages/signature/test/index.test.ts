import { describe, expect, expectTypeOf, it } from 'vitest';
import type { SanitizedSchema, SignatureInput } from '../src/index';

describe('public API', () => {
  it('exports exactly the documented names', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'SCHEMA_MAX_BYTES',
      'SIGNATURE_MAX_LENGTH',
      'renderSignature',
      'sanitizeSchema',
    ]);
  });

  it('pins the limits the seed names', async () => {
    const api = await import('../src/index');
    expect(api.SIGNATURE_MAX_LENGTH).toBe(400);
    expect(api.SCHEMA_MAX_BYTES).toBe(16384);
  });

  it('types its inputs and results', async () => {
    const api = await import('../src/index');
    expectTypeOf(api.renderSignature).parameter(0).toEqualTypeOf<SignatureInput>();
    expectTypeOf(api.renderSignature).returns.toEqualTypeOf<string>();
    expectTypeOf(api.sanitizeSchema).returns.toEqualTypeOf<SanitizedSchema>();
    expectTypeOf<SanitizedSchema>().toEqualTypeOf<Record<string, unknown> | true>();
  });
});
