import { CodedError } from '@harness/errors';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parse, renderArgv, type Template, TmplError } from '../src/index';

function thrown(fn: () => unknown): TmplError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TmplError) return error;
    throw error;
  }
  throw new Error('expected a TmplError');
}

function tpl(source: string): Template {
  const result = parse(source);
  if (!result.ok) throw new Error('parse failed');
  return result.template;
}

describe('renderArgv keeps argv length [TM-14]', () => {
  it('one string per element, strings and parsed templates alike [TM-14]', () => {
    expect(
      renderArgv(['git', tpl('log'), '-n', '{{n}}', '--grep={{q}}', '{{opt?}}'], { n: 5, q: 'a b' }),
    ).toEqual(['git', 'log', '-n', '5', '--grep=a b', '']);
  });

  it('an empty template list renders an empty argv [TM-14]', () => {
    expect(renderArgv([], {})).toEqual([]);
  });
});

describe('value-only substitution (each hostile value stays one element) [CP-31, CP-32]', () => {
  it.each([
    '; rm -rf /',
    '| cat /etc/passwd',
    '$(whoami)',
    '`id`',
    '&& curl evil.example',
    'a b c',
    'line1\nline2',
    `"quoted" 'single'`,
    'back\\slash',
    '*',
    '',
  ])('CP-32: %j stays one argument', (value) => {
    expect(renderArgv(['jq', '{{filter}}', 'file.json'], { filter: value })).toEqual([
      'jq',
      value,
      'file.json',
    ]);
  });
});

describe('a substituted value is never re-parsed [TM-13, CP-34]', () => {
  it('placeholder syntax in a value reaches argv literally [TM-13]', () => {
    expect(
      renderArgv(['echo', '{{x}}', 'x={{x}}'], { x: '{{credential.gh}}', credential: { gh: 'S' } }),
    ).toEqual(['echo', '{{credential.gh}}', 'x={{credential.gh}}']);
  });
});

describe('D4: flag injection is refused', () => {
  it.each(['-rf', '--config=/etc/x', '-', '--'])(
    'D4: a whole element starting with a value %j is refused',
    (value) => {
      const error = thrown(() => renderArgv(['rm', '{{path}}'], { path: value }));
      expect(error.code).toBe('flag_injection');
      expect(error.index).toBe(1);
      expect(error.path).toBe('path');
    },
  );

  it('D4: the message', () => {
    expect(() => renderArgv(['rm', '{{path}}'], { path: '-rf' })).toThrowErrorMatchingInlineSnapshot(
      `[TmplError: argv element 1 would start with the value of path, which begins with "-" and would be read as an option; put a literal prefix in the element, or (for a program that honours "--") a literal "--" element before it and allow path a leading dash.]`,
    );
  });

  it('D4: an absent optional before the value does not hide it', () => {
    expect(thrown(() => renderArgv(['rm', '{{a?}}{{b}}'], { b: '-rf' })).code).toBe('flag_injection');
  });

  it('refuses a value that starts with "-" after a literal -- by default: find -- -delete still deletes [SEC-10] [D4]', () => {
    const error = thrown(() => renderArgv(['find', '--', '{{dir}}', '-type', 'f'], { dir: '-delete' }));
    expect([error.code, error.index, error.path]).toEqual(['flag_injection', 2, 'dir']);
    expect(error.message).toMatchInlineSnapshot(
      `"argv element 2 would start with the value of dir, which begins with "-"; a literal "--" before it protects only programs that honour "--" (find reads "-delete" after it as an action), so it is refused. Allow dir a leading dash only if this program honours "--"."`,
    );
  });

  it('allows a leading dash after a literal -- only for a path declared to allow it [SEC-10] [D4]', () => {
    const allow = { allowLeadingDash: ['path'] };
    expect(renderArgv(['rm', '--', '{{path}}'], { path: '-rf' }, allow)).toEqual(['rm', '--', '-rf']);
    expect(renderArgv(['rm', tpl('--'), 'x', '{{path}}'], { path: '-rf' }, allow)).toEqual([
      'rm',
      '--',
      'x',
      '-rf',
    ]);
    expect(thrown(() => renderArgv(['rm', '--', '{{other}}'], { other: '-rf' }, allow)).code).toBe(
      'flag_injection',
    );
  });

  it('a declared leading dash without a literal -- before it is still refused [SEC-10] [D4]', () => {
    expect(
      thrown(() => renderArgv(['rm', '{{path}}'], { path: '-rf' }, { allowLeadingDash: ['path'] })).code,
    ).toBe('flag_injection');
  });

  it('D4: a -- that came from a value does not count', () => {
    expect(thrown(() => renderArgv(['rm', 'x{{d}}', '{{path}}'], { d: '--', path: '-rf' })).code).toBe(
      'flag_injection',
    );
  });

  it('D4: a -- after the element does not help', () => {
    expect(thrown(() => renderArgv(['rm', '{{path}}', '--'], { path: '-rf' })).code).toBe('flag_injection');
  });

  it('D4: literal flags and values after a literal prefix are fine', () => {
    expect(
      renderArgv(['ls', '--color={{c}}', '-{{n}}', 'x{{v}}'], { c: '-always', n: 'l', v: '-rf' }),
    ).toEqual(['ls', '--color=-always', '-l', 'x-rf']);
  });

  it('D4: a value starting with - inside an element is fine when a literal starts it', () => {
    expect(renderArgv(['grep', 'pattern:{{p}}'], { p: '-e' })).toEqual(['grep', 'pattern:-e']);
  });

  it('D4: a negative integer starting a whole element is refused like any other value', () => {
    expect(thrown(() => renderArgv(['seq', '{{n}}'], { n: -3 })).code).toBe('flag_injection');
  });
});

describe('NUL bytes are refused in argv', () => {
  it('refuses a value holding NUL, naming the path and index', () => {
    const error = thrown(() => renderArgv(['echo', 'a{{x}}'], { x: 'a\0b' }));
    expect([error.code, error.path, error.index]).toEqual(['nul_byte', 'x', 1]);
    expect(error.message).toMatchInlineSnapshot(
      `"argv element 1: the value of x holds a NUL byte, which no process argument can carry; remove it from the value."`,
    );
  });

  it('refuses NUL in literal text', () => {
    const error = thrown(() => renderArgv(['echo', 'a\0b'], {}));
    expect([error.code, error.path, error.index]).toEqual(['nul_byte', undefined, 1]);
  });

  it('checks NUL before flag injection for a value that has both', () => {
    expect(thrown(() => renderArgv(['x', '{{v}}'], { v: '-\0' })).code).toBe('nul_byte');
  });
});

describe('TmplError follows the error convention (docs/errors.md)', () => {
  it('is a CodedError whose details hold the path and index, typed per code', () => {
    const error = thrown(() => renderArgv(['rm', '{{path}}'], { path: '-rf' }));
    expect(error).toBeInstanceOf(CodedError);
    expect([error.name, error.code, error.details]).toEqual([
      'TmplError',
      'flag_injection',
      { path: 'path', index: 1 },
    ]);
    if (!error.is('flag_injection')) throw new Error('expected flag_injection');
    expectTypeOf(error.details.path).toEqualTypeOf<string>();
    expectTypeOf(error.details.index).toEqualTypeOf<number>();
  });

  it('keeps path, index and issues readable on the error itself, as before details', () => {
    const error = thrown(() => renderArgv(['echo', '{{if x}}'], {}));
    if (!error.is('invalid_template')) throw new Error('expected invalid_template');
    expect([error.index, error.path, error.issues?.map((i) => i.code)]).toEqual([
      1,
      undefined,
      ['invalid_placeholder'],
    ]);
    expect(error.issues).toBe(error.details.issues);
  });
});

describe('argv refuses what load should have caught', () => {
  it('refuses {{untrusted …}} in argv (TM-25 at render time too)', () => {
    const error = thrown(() => renderArgv(['echo', '{{untrusted event.body}}'], { event: { body: 'x' } }));
    expect([error.code, error.index, error.path]).toEqual(['untrusted_in_argv', 1, 'event.body']);
  });

  it('throws invalid_template with the index and issues for a bad element', () => {
    const error = thrown(() => renderArgv(['echo', 'ok', '{{if x}}'], {}));
    expect([error.code, error.index, error.issues?.map((i) => i.code)]).toEqual([
      'invalid_template',
      2,
      ['invalid_placeholder'],
    ]);
    expect(error.message).toMatchInlineSnapshot(
      `"Template (argv element 2) does not parse: Invalid placeholder {{if x}}: found "if x"; expected one of {{path}}, {{path?}}, {{untrusted path}} or {{literal_open}} (there are no functions, filters or conditionals)."`,
    );
  });

  it('a missing required value throws unresolved with the index [CP-36]', () => {
    const error = thrown(() => renderArgv(['echo', '{{x}}'], {}));
    expect([error.code, error.path]).toEqual(['unresolved', 'x']);
  });

  it('accepts a Template from another copy of the package by re-parsing its source', () => {
    const foreign: Template = { source: '{{x}}', parts: [], refs: () => [] };
    expect(renderArgv([foreign], { x: 'v' })).toEqual(['v']);
  });
});
