import { describe, expect, it } from 'vitest';
import { renderSignature, type SignatureInput } from '../src/index';

/** Signature of a command named `c` with these arguments (properties in order, `required` by name). */
const sig = (inputSchema: unknown, extra: Partial<SignatureInput> = {}) =>
  renderSignature({ name: 'c', inputSchema, ...extra });
const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});
/** The type shown for one required parameter `p`. */
const typeOf = (schema: unknown) => {
  const line = sig(obj({ p: schema }, ['p']));
  return line.slice('c(p: '.length, line.length - ')  [global]'.length);
};

describe('the line', () => {
  it('is one line shaped name(params) -> {outputs}  [effect, target] [HC-61]', () => {
    const line = renderSignature({
      name: 'people-discovery.dossier',
      inputSchema: obj({ entity_id: { type: 'string' }, limit: { type: 'integer', default: 50 } }, [
        'entity_id',
      ]),
      outputs: ['messages', 'records'],
      effect: 'read',
    });
    expect(line).toBe(
      'people-discovery.dossier(entity_id: string, limit?: integer = 50) -> {messages, records}  [read, global]',
    );
    expect(line).not.toMatch(/[\n\r\u2028\u2029]/);
  });

  it('keeps a value with a line break on the line, escaped [HC-61]', () => {
    expect(sig(obj({ 'a\nb': { enum: ['x\ny', 'z\u2028'] } }, ['a\nb']))).toBe(
      'c("a\\nb": "x\\ny"|"z\\u2028")  [global]',
    );
  });
});

describe('parameters', () => {
  const schema = obj(
    { a: { type: 'string' }, b: { type: 'integer' }, c: { type: 'boolean' }, d: { type: 'number' } },
    ['d', 'b'],
  );

  it('puts required parameters first, without ? [HC-62]', () => {
    expect(sig(schema)).toMatch(/^c\(b: integer, d: number, /);
  });

  it('marks each optional parameter with ? [HC-63]', () => {
    expect(sig(schema)).toBe('c(b: integer, d: number, a?: string, c?: boolean)  [global]');
  });

  it('keeps the schema property order in each group, not the order of required [HC-64]', () => {
    expect(sig(obj({ z: {}, y: {}, x: {}, w: {} }, ['x', 'z']))).toBe(
      'c(z: any, x: any, y?: any, w?: any)  [global]',
    );
  });

  it('writes a default after = [HC-65]', () => {
    expect(sig(obj({ limit: { type: 'integer', default: 50 } }))).toBe('c(limit?: integer = 50)  [global]');
    expect(sig(obj({ q: { type: 'string', default: 'main' }, r: { type: 'string', default: 'a b' } }))).toBe(
      'c(q?: string = main, r?: string = "a b")  [global]',
    );
    expect(
      sig(obj({ f: { type: 'array', default: [] }, o: { default: { a: 1 } }, n: { default: null } })),
    ).toBe('c(f?: any[] = [], o?: any = {"a":1}, n?: any = null)  [global]');
  });

  it('reads a required input the host fills from context (x-source) as optional, in the optional group [HC-66]', () => {
    const inputs = obj(
      { loom_id: { type: 'string', 'x-source': 'loom' }, query: { type: 'string' }, n: { type: 'integer' } },
      ['loom_id', 'query'],
    );
    expect(sig(inputs, { scope: 'loom' })).toBe('c(query: string, loom_id?: string, n?: integer)  [loom]');
  });

  it('ignores an x-source that names nothing [HC-66]', () => {
    expect(sig(obj({ a: { type: 'string', 'x-source': '' }, b: { 'x-source': true } }, ['a', 'b']))).toBe(
      'c(a: string, b: any)  [global]',
    );
  });

  it('reads a schema that leaves its arguments open as (...) [HC-74]', () => {
    for (const open of [
      true,
      {},
      { type: 'object' },
      { type: 'object', additionalProperties: { type: 'string' } },
      null,
      3,
      'x',
      [],
    ]) {
      expect(sig(open)).toBe('c(...)  [global]');
    }
  });

  it('reads declared but empty properties, or closed arguments, as () [HC-74]', () => {
    expect(sig({ type: 'object', properties: {} })).toBe('c()  [global]');
    expect(sig({ type: 'object', additionalProperties: false })).toBe('c()  [global]');
  });

  it('reads arguments nothing can satisfy as (never) [HC-73]', () => {
    for (const none of [
      false,
      { type: 'string' },
      { anyOf: [] },
      { oneOf: [] },
      { enum: [] },
      { enum: [1, 'a'] },
      { const: 3 },
      { allOf: [false] },
    ]) {
      expect(sig(none)).toBe('c(never)  [global]');
    }
  });

  it('lists a required name the properties do not declare, as any', () => {
    expect(sig({ type: 'object', properties: { a: { type: 'string' } }, required: ['b', 'a'] })).toBe(
      'c(a: string, b: any)  [global]',
    );
  });

  it('quotes a parameter name that could be misread', () => {
    expect(sig(obj({ 'a b': {}, 'x?': {}, '': {}, 'x-foo': {}, дата: {} }))).toBe(
      'c("a b"?: any, "x?"?: any, ""?: any, x-foo?: any, дата?: any)  [global]',
    );
  });

  it('follows a local $ref at the root to the arguments schema', () => {
    const inputs = {
      $ref: '#/definitions/Args',
      definitions: { Args: obj({ a: { type: 'string' } }, ['a']) },
    };
    expect(sig(inputs)).toBe('c(a: string)  [global]');
    expect(sig({ $ref: '#/definitions/Missing' })).toBe('c(...)  [global]');
    expect(sig({ $ref: '#' })).toBe('c(...)  [global]');
  });

  it('merges the parameters of allOf members at the root', () => {
    expect(sig({ allOf: [obj({ a: { type: 'string' } }, ['a']), obj({ b: { type: 'integer' } })] })).toBe(
      'c(a: string, b?: integer)  [global]',
    );
  });

  it('merges anyOf/oneOf branches at the root: required only where every branch requires it', () => {
    const inputs = {
      oneOf: [
        obj({ kind: { const: 'a' }, x: { type: 'string' } }, ['kind', 'x']),
        obj({ kind: { const: 'b' }, y: { type: 'integer' } }, ['kind']),
      ],
    };
    expect(sig(inputs)).toBe('c(kind: a|b, x?: string, y?: integer)  [global]');
  });

  it('keeps declared types where root branches only require (at least one of)', () => {
    const inputs = {
      ...obj({ ref: { type: 'string' }, token: { type: 'string' } }),
      anyOf: [{ required: ['ref'] }, { required: ['token'] }],
    };
    expect(sig(inputs)).toBe('c(ref?: string, token?: string)  [global]');
  });
});

describe('types', () => {
  it('reads an enum as a|b|c [HC-67]', () => {
    expect(typeOf({ enum: ['a', 'b', 'c'] })).toBe('a|b|c');
    expect(typeOf({ type: 'integer', enum: [1, 2, 3] })).toBe('1|2|3');
    expect(typeOf({ enum: ['a', 'a', 'b'] })).toBe('a|b');
  });

  it('quotes and JSON-escapes an enum member that is empty or holds whitespace, |, a quote, a backslash or a control character [HC-68]', () => {
    expect(
      typeOf({ enum: ['', 'a b', 'tab\t', 'x|y', 'say "hi"', "it's", 'back\\slash', 'bell\u0007', 'plain'] }),
    ).toBe('""|"a b"|"tab\\t"|"x|y"|"say \\"hi\\""|"it\'s"|"back\\\\slash"|"bell\\u0007"|plain');
  });

  it('also quotes members that would read as a type, a number, or the line grammar, and escapes invisible characters [HC-68]', () => {
    expect(
      typeOf({
        enum: [
          'string',
          'null',
          '42',
          '-1',
          'a,b',
          'f(x)',
          'k=v',
          'a:b',
          '…',
          'rtl\u202eoverride',
          'zw\u200bsp',
        ],
      }),
    ).toBe('"string"|"null"|"42"|"-1"|"a,b"|"f(x)"|"k=v"|"a:b"|"…"|"rtl\\u202eoverride"|"zw\\u200bsp"');
    expect(typeOf({ enum: [42, true, null, 'true', { a: 1 }, [1]] })).toBe('42|true|null|"true"|{"a":1}|[1]');
  });

  it('reads an array as T[] [HC-69]', () => {
    expect(typeOf({ type: 'array', items: { type: 'string' } })).toBe('string[]');
    expect(typeOf({ type: 'array' })).toBe('any[]');
    expect(typeOf({ type: 'array', items: { type: 'array', items: { enum: ['a', 'b'] } } })).toBe(
      '(a|b)[][]',
    );
    expect(typeOf({ items: { type: 'integer' } })).toBe('integer[]');
    expect(typeOf({ type: 'array', items: false })).toBe('never[]');
  });

  it('reads an object with declared properties as {...} [HC-70]', () => {
    expect(typeOf({ type: 'object', properties: { a: { type: 'string' } } })).toBe('{...}');
    expect(typeOf({ properties: { a: {} } })).toBe('{...}');
  });

  it('reads an object without declared properties as object [HC-71]', () => {
    expect(typeOf({ type: 'object' })).toBe('object');
    expect(typeOf({ type: 'object', properties: {} })).toBe('object');
    expect(typeOf({ type: 'object', additionalProperties: { type: 'string' } })).toBe('object');
  });

  it('reads a $ref as the name it ends in [HC-72]', () => {
    expect(typeOf({ $ref: '#/$defs/Person' })).toBe('Person');
    expect(typeOf({ $ref: '#/definitions/a~1b' })).toBe('a/b');
    expect(typeOf({ $ref: 'https://example.com/schemas/address.json' })).toBe('address.json');
    expect(typeOf({ $ref: 'other.json#/$defs/Money%20Amount' })).toBe('"Money Amount"');
    expect(typeOf({ type: 'array', items: { $ref: '#/$defs/Node' } })).toBe('Node[]');
  });

  it('terminates on a recursive $ref, which it never follows [HC-72]', () => {
    const node = {
      $ref: '#/$defs/Node',
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
    };
    expect(typeOf(node)).toBe('Node');
  });

  it('reads a position nothing can satisfy as never [HC-73]', () => {
    expect(typeOf(false)).toBe('never');
    expect(typeOf({ enum: [] })).toBe('never');
    expect(typeOf({ anyOf: [] })).toBe('never');
    expect(typeOf({ oneOf: [] })).toBe('never');
    expect(typeOf({ type: 'string', anyOf: [] })).toBe('never');
    expect(typeOf({ anyOf: [false, false] })).toBe('never');
    expect(typeOf({ type: [] })).toBe('never');
  });

  it('reads an unconstrained position as any', () => {
    expect(typeOf(true)).toBe('any');
    expect(typeOf({})).toBe('any');
    expect(typeOf({ description: 'free' })).toBe('any');
    expect(typeOf({ type: 'date' })).toBe('any');
    expect(typeOf({ not: { type: 'string' } })).toBe('any');
  });

  describe('open cases (docs/signatures.md)', () => {
    it('reads a type array as a union of its types', () => {
      expect(typeOf({ type: ['string', 'null'] })).toBe('string|null');
      expect(typeOf({ type: ['array', 'string'], items: { type: 'integer' } })).toBe('integer[]|string');
      expect(typeOf({ type: ['boolean', 'bogus'] })).toBe('boolean');
    });

    it('reads const as its one literal', () => {
      expect(typeOf({ const: 'fixed' })).toBe('fixed');
      expect(typeOf({ const: 'a b' })).toBe('"a b"');
      expect(typeOf({ const: 0 })).toBe('0');
      expect(typeOf({ type: 'string', const: 'x', enum: ['x', 'y'] })).toBe('x');
    });

    it('reads anyOf/oneOf as the union of the members, any absorbing the rest', () => {
      expect(typeOf({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('string|null');
      expect(typeOf({ oneOf: [{ $ref: '#/$defs/A' }, { $ref: '#/$defs/B' }, false] })).toBe('A|B');
      expect(typeOf({ anyOf: [{ type: 'string' }, {}] })).toBe('any');
      expect(typeOf({ anyOf: [{ enum: ['a', 'b'] }, { enum: ['b', 'c'] }] })).toBe('a|b|c');
    });

    it('lets a position own type win over constraint-only combinators', () => {
      expect(
        typeOf({ type: 'object', properties: { a: {} }, oneOf: [{ required: ['a'] }, { required: ['b'] }] }),
      ).toBe('{...}');
      expect(typeOf({ type: 'string', allOf: [{ minLength: 1 }] })).toBe('string');
    });

    it('reads nullable: true (OpenAPI 3.0) as |null', () => {
      expect(typeOf({ type: 'string', nullable: true })).toBe('string|null');
      expect(typeOf({ enum: ['a', null], nullable: true })).toBe('a|null');
    });

    it('reads a tuple as [A, B], open ones with ...T[]', () => {
      expect(
        typeOf({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false }),
      ).toBe('[string, integer]');
      expect(
        typeOf({ type: 'array', items: [{ type: 'string' }, { type: 'number' }], minItems: 2, maxItems: 2 }),
      ).toBe('[string, number]');
      expect(typeOf({ type: 'array', items: [{ type: 'string' }] })).toBe('[string, ...any[]]');
      expect(typeOf({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'integer' } })).toBe(
        '[string, ...integer[]]',
      );
    });

    it('reads allOf as the intersection of its typed members', () => {
      expect(typeOf({ allOf: [{ $ref: '#/$defs/A' }, { $ref: '#/$defs/B' }] })).toBe('A&B');
      expect(typeOf({ allOf: [{ $ref: '#/$defs/A' }, { description: 'x' }] })).toBe('A');
      expect(typeOf({ allOf: [{ type: 'string' }, { type: 'string' }] })).toBe('string');
      expect(typeOf({ type: 'array', items: { allOf: [{ $ref: 'A' }, { $ref: 'B' }] } })).toBe('(A&B)[]');
      expect(typeOf({ allOf: [{ type: 'string' }, false] })).toBe('never');
      expect(typeOf({ allOf: [] })).toBe('any');
    });

    it('shows no format, pattern or bound: string stays string', () => {
      expect(typeOf({ type: 'string', format: 'uri', pattern: '^h', maxLength: 9 })).toBe('string');
    });
  });
});

describe('outputs', () => {
  it('names the declared outputs as -> {a, b} [HC-75]', () => {
    expect(sig({}, { outputs: ['a', 'b'] })).toBe('c(...) -> {a, b}  [global]');
    expect(sig({}, { outputs: ['a', 7, 'a', 'b c'] })).toBe('c(...) -> {a, "b c"}  [global]');
  });

  it('leaves -> out when the command declares no outputs [HC-76]', () => {
    for (const outputs of [undefined, [], [1, null], 'a', { a: 1 }]) {
      expect(sig({}, { outputs })).toBe('c(...)  [global]');
    }
  });
});

describe('the bracket', () => {
  it('holds the declared effect first, then the target [HC-77]', () => {
    expect(sig({}, { effect: 'read', scope: 'loom' })).toBe('c(...)  [read, loom]');
    expect(sig({}, { effect: 'write' })).toBe('c(...)  [write, global]');
  });

  it('holds no effect where the host declares none or an unknown one [HC-78]', () => {
    for (const effect of [undefined, null, '', 'READ', 'delete', 1, ['read']]) {
      expect(sig({}, { effect, scope: 'loom' })).toBe('c(...)  [loom]');
    }
  });

  it('holds the scope as the host writes it, or global where it declares none [HC-79]', () => {
    expect(sig({}, { scope: 'loom' })).toBe('c(...)  [loom]');
    expect(sig({}, { scope: 'workspace:acme' })).toBe('c(...)  ["workspace:acme"]');
    for (const scope of [undefined, '', null, 3, {}]) expect(sig({}, { scope })).toBe('c(...)  [global]');
  });
});

describe('the 400-character cut', () => {
  const many = (n: number, width = 10) =>
    obj(
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`p${String(i).padStart(width, '0')}`, { type: 'string' }]),
      ),
    );

  it('cuts a longer line at a parameter boundary, trailing parameters replaced by … [HC-80]', () => {
    const line = sig(many(40), { outputs: ['out'], effect: 'read' });
    expect(line.length).toBeLessThanOrEqual(400);
    expect(line).toMatch(
      /^c\(p0000000000\?: string, (p\d{10}\?: string, )+…\) -> \{out\} {2}\[read, global\]$/,
    );
    // As many whole parameters as fit: one more would not.
    const kept = (line.match(/p\d{10}/g) ?? []).length;
    expect(line.length + ', p0000000000?: string'.length).toBeGreaterThan(400);
    expect(kept).toBe(16);
  });

  it('leaves a line of exactly 400 characters whole [HC-80]', () => {
    const fill = 'x'.repeat(400 - 'c(...)  [global]'.length);
    expect(renderSignature({ name: `c${fill}`, inputSchema: {} })).toHaveLength(400);
    expect(renderSignature({ name: `c${fill}`, inputSchema: {} })).not.toContain('…');
  });

  it('cuts inside a single huge parameter at a union boundary, keeping its name [HC-80]', () => {
    const members = Array.from({ length: 200 }, (_, i) => `member${i}`);
    const line = sig(obj({ mode: { enum: members }, other: { type: 'string' } }, ['mode']), {
      effect: 'write',
    });
    expect(line.length).toBeLessThanOrEqual(400);
    expect(line).toMatch(/^c\(mode: member0\|member1\|(member\d+\|)+…, …\) {2}\[write, global\]$/);
  });

  it('replaces a single parameter whose type cannot be cut by its name and … [HC-80]', () => {
    const line = sig(obj({ blob: { const: 'z'.repeat(1000) } }, ['blob']));
    expect(line).toBe('c(blob: …)  [global]');
  });

  it('keeps the bracket and a cut outputs list when outputs are long [HC-80]', () => {
    const outputs = Array.from({ length: 100 }, (_, i) => `field_${i}`);
    const line = sig(obj({ a: { type: 'string' } }, ['a']), { outputs, effect: 'read', scope: 'loom' });
    expect(line.length).toBeLessThanOrEqual(400);
    expect(line).toMatch(/^c\(a: string\) -> \{field_0, field_1, (field_\d+, )+…\} {2}\[read, loom\]$/);
  });

  it('cuts a huge name and a huge scope, marking each with … [HC-80]', () => {
    const line = renderSignature({
      name: 'n'.repeat(1000),
      inputSchema: many(3),
      scope: 's'.repeat(500),
      effect: 'read',
    });
    expect(line.length).toBeLessThanOrEqual(400);
    expect(line).toMatch(/^n+…\(…\) {2}\[read, s{63}…\]$/);
    const quoted = renderSignature({ name: 'a b'.repeat(300), inputSchema: {} });
    expect(quoted).toMatch(/^"(a b)+[a ]*"…\(\.\.\.\) {2}\[global\]$/);
    expect(quoted.length).toBeLessThanOrEqual(400);
  });
});

describe('totality', () => {
  it('renders any input object shape without throwing', () => {
    expect(renderSignature({ name: 42, inputSchema: undefined })).toBe('42(...)  [global]');
    expect(renderSignature({ name: { a: 1 }, inputSchema: null })).toBe('"{\\"a\\":1}"(...)  [global]');
    expect(renderSignature(null as unknown as SignatureInput)).toBe('""(...)  [global]');
  });

  it('terminates on cyclic object graphs', () => {
    const cyc: Record<string, unknown> = { type: 'object' };
    cyc.properties = { self: cyc, list: { type: 'array', items: cyc } };
    cyc.allOf = [cyc];
    cyc.anyOf = [cyc, { properties: { x: cyc } }];
    expect(sig(cyc)).toBe('c(self?: {...}, list?: {...}[], x?: {...})  [global]');
    const loop: Record<string, unknown> = {};
    loop.anyOf = [loop];
    expect(typeOf(loop)).toBe('any');
  });

  it('is deterministic', () => {
    const input = { name: 'x', inputSchema: obj({ a: { enum: ['b', 'a'] }, b: {} }, ['b']), outputs: ['o'] };
    expect(renderSignature(input)).toBe(renderSignature(structuredClone(input)));
  });
});

describe('size', () => {
  it('renders a schema of 100,000 parameters quickly, cut to 400 [HC-80]', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 100_000 }, (_, i) => [`p${i}`, { type: 'string' }]),
    );
    const line = sig({ type: 'object', properties, required: ['p99999'] });
    expect(line.length).toBeLessThanOrEqual(400);
    expect(line).toMatch(/^c\(p99999: string, p0\?: string, p1\?: string, .*, …\) {2}\[global\]$/);
  });

  it('renders an enum of a million members as its first ones and … [HC-80]', () => {
    const members = Array.from({ length: 1_000_000 }, (_, i) => `m${i}`);
    const line = sig(obj({ v: { enum: members } }, ['v']));
    expect(line.length).toBeLessThanOrEqual(400);
    expect(line).toMatch(/^c\(v: m0\|m1\|m2\|(m\d+\|)+…\) {2}\[global\]$/);
  });
});
