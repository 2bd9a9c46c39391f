import { describe, expect, it } from 'vitest';
import { IssueCode, parse, render, type Template, TmplError } from '../src/index';

function ok(source: string): Template {
  const result = parse(source);
  if (!result.ok) throw new Error(`expected ${source} to parse: ${JSON.stringify(result.issues)}`);
  return result.template;
}

function codes(source: string): string[] {
  const result = parse(source);
  return result.ok ? [] : result.issues.map((i) => i.code);
}

function thrown(fn: () => unknown): TmplError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TmplError) return error;
    throw error;
  }
  throw new Error('expected a TmplError');
}

describe('the grammar is closed [TM-01]', () => {
  it.each([
    ['{{if x}}', IssueCode.invalid_placeholder],
    ['{{printf "%s" x}}', IssueCode.invalid_placeholder],
    ['{{range .items}}', IssueCode.invalid_placeholder],
    ['{{ x | upper }}', IssueCode.invalid_placeholder],
    ['{{len(x)}}', IssueCode.invalid_placeholder],
    ['{{end}}{{else}}', undefined],
  ])('TM-01: %s is a grammar error or a plain path, never a function', (source, code) => {
    if (code === undefined) {
      // `end` and `else` are just paths in a closed grammar: there are no keywords to close.
      expect(
        ok(source)
          .refs()
          .map((r) => r.path),
      ).toEqual(['end', 'else']);
    } else {
      expect(codes(source)).toEqual([code]);
    }
  });

  it('accepts exactly the four forms [TM-01]', () => {
    const t = ok('{{a}} {{b?}} {{untrusted c}} {{literal_open}}');
    expect(t.refs().map((r) => [r.path, r.form])).toEqual([
      ['a', 'required'],
      ['b', 'optional'],
      ['c', 'untrusted'],
    ]);
    expect(t.parts.filter((p) => p.kind === 'text').map((p) => (p.kind === 'text' ? p.text : ''))).toEqual([
      ' ',
      ' ',
      ' {{',
    ]);
  });

  it('the keywords literal_open and untrusted are not paths [TM-01]', () => {
    expect(codes('{{literal_open?}}')).toEqual([IssueCode.invalid_placeholder]);
    expect(codes('{{untrusted}}')).toEqual([IssueCode.invalid_placeholder]);
    expect(codes('{{untrusted literal_open}}')).toEqual([IssueCode.invalid_placeholder]);
    expect(codes('{{untrusted x?}}')).toEqual([IssueCode.invalid_path]);
  });
});

describe('{{path}} is required [TM-02]', () => {
  it('an unresolved required value throws unresolved naming the path [TM-02]', () => {
    const error = thrown(() => render(ok('id={{run.id}}'), { run: {} }));
    expect(error.code).toBe('unresolved');
    expect(error.path).toBe('run.id');
    expect(error.message).toMatchInlineSnapshot(
      `"Unresolved required value run.id: the render context has no value for {{run.id}}; supply it, or write {{run.id?}} to render empty when absent."`,
    );
  });

  it.each([
    [{}, 'absent'],
    [{ run: null }, 'null parent'],
    [{ run: { id: null } }, 'null value'],
    [{ run: 'r1' }, 'a string where an object should be'],
  ])('%j (%s) leaves run.id unresolved [TM-02]', (context, _why) => {
    expect(thrown(() => render(ok('{{run.id}}'), context)).code).toBe('unresolved');
  });
});

describe('{{path?}} is optional [TM-03]', () => {
  it('an absent optional value renders as the empty string [TM-03]', () => {
    expect(render(ok('[{{run.source?}}]'), {})).toBe('[]');
    expect(render(ok('[{{run.source?}}]'), { run: { source: 'cron' } })).toBe('[cron]');
  });
});

describe('{{untrusted path}} renders inside the fence [TM-04]', () => {
  it('the value is wrapped in an untrusted-data block [TM-04]', () => {
    const out = render(ok('{{untrusted event.body}}'), { event: { body: 'hello' } }, { onWarn: () => {} });
    expect(out).toMatch(
      /^<untrusted-data source="unknown" field="event.body" nonce="[0-9a-f]{32}">\nhello\n<\/untrusted-data nonce="[0-9a-f]{32}">$/,
    );
  });
});

describe('{{literal_open}} renders {{ [TM-05]', () => {
  it('renders the two characters {{ and is not a reference [TM-05]', () => {
    const t = ok('{{literal_open}}run.id}}');
    expect(t.refs()).toEqual([]);
    expect(render(t, { run: { id: 'x' } })).toBe('{{run.id}}');
  });
});

describe('path grammar [TM-06]', () => {
  it.each(['a', 'run.id', 'event.meta.team_2', 'a0.b_c.d9', 'credential.gh_token'])(
    'accepts %s [TM-06]',
    (path) => {
      expect(ok(`{{${path}}}`).refs()[0]?.path).toBe(path);
    },
  );

  it.each([
    'Run.id',
    'run..id',
    '.run',
    'run.',
    '1run',
    'run.1d',
    'run-id',
    '_x',
    'run.Id',
    'rün',
    'a.b.*',
    '$x',
  ])('refuses %s with invalid_path [TM-06]', (path) => {
    expect(codes(`{{${path}}}`)).toEqual([IssueCode.invalid_path]);
  });

  it('the message says what was found and what is expected [TM-06]', () => {
    const result = parse('x {{Run.id}}');
    expect(result.ok ? [] : result.issues).toMatchInlineSnapshot(`
      [
        {
          "code": "invalid_path",
          "column": 3,
          "line": 1,
          "message": "Invalid path "Run.id" in a placeholder: expected lowercase dotted segments such as run.id or event.meta.team (each segment [a-z][a-z0-9_]*).",
          "offset": 2,
        },
      ]
    `);
  });
});

describe('whitespace just inside the braces is ignored [TM-07]', () => {
  it.each(['{{ run.id }}', '{{run.id }}', '{{\trun.id\n}}', '{{  run.id}}'])(
    '%j equals {{run.id}} [TM-07]',
    (source) => {
      expect(
        ok(source)
          .refs()
          .map((r) => [r.path, r.form]),
      ).toEqual([['run.id', 'required']]);
    },
  );

  it('applies to every form [TM-07]', () => {
    expect(ok('{{ x? }}').refs()[0]?.form).toBe('optional');
    expect(ok('{{ untrusted  x }}').refs()[0]?.form).toBe('untrusted');
    expect(render(ok('{{ literal_open }}'), {})).toBe('{{');
  });

  it('whitespace inside a path or before ? is still an error [TM-07]', () => {
    expect(codes('{{run. id}}')).toEqual([IssueCode.invalid_placeholder]);
    expect(codes('{{run.id ?}}')).toEqual([IssueCode.invalid_placeholder]);
  });
});

describe('a lone }} is literal text [TM-08]', () => {
  it.each([
    ['}}', '}}'],
    ['{a: {b: .c}}', '{a: {b: .c}}'],
    ['x}}y{{run.id}}z}}', 'x}}y1z}}'],
    ['{ single } braces {', '{ single } braces {'],
  ])('%j renders as %j [TM-08]', (source, expected) => {
    expect(render(ok(source), { run: { id: '1' } })).toBe(expected);
  });
});

describe('any other {{ is a grammar error [TM-09]', () => {
  it.each([
    ['{{', IssueCode.unclosed_placeholder],
    ['abc {{run.id', IssueCode.unclosed_placeholder],
    ['{{}}', IssueCode.invalid_placeholder],
    ['{{ }}', IssueCode.invalid_placeholder],
    ['{{{run.id}}}', IssueCode.invalid_path],
    ['{{?}}', IssueCode.invalid_path],
  ])('%j is %s [TM-09]', (source, code) => {
    expect(codes(source)).toEqual([code]);
  });

  it('reports every issue with offset, line and column [TM-09]', () => {
    const result = parse('ok {{a}}\n  {{if x}} {{B}}\n{{');
    expect(result.ok ? [] : result.issues).toMatchInlineSnapshot(`
      [
        {
          "code": "invalid_placeholder",
          "column": 3,
          "line": 2,
          "message": "Invalid placeholder {{if x}}: found "if x"; expected one of {{path}}, {{path?}}, {{untrusted path}} or {{literal_open}} (there are no functions, filters or conditionals).",
          "offset": 11,
        },
        {
          "code": "invalid_path",
          "column": 12,
          "line": 2,
          "message": "Invalid path "B" in a placeholder: expected lowercase dotted segments such as run.id or event.meta.team (each segment [a-z][a-z0-9_]*).",
          "offset": 20,
        },
        {
          "code": "unclosed_placeholder",
          "column": 1,
          "line": 3,
          "message": "Unclosed placeholder: found "{{" with no "}}" after it; close it, or write {{literal_open}} for literal braces.",
          "offset": 26,
        },
      ]
    `);
  });

  it('a non-string source is an issue, not a throw [TM-09]', () => {
    expect(parse(42 as unknown as string)).toMatchInlineSnapshot(`
      {
        "issues": [
          {
            "code": "not_a_string",
            "column": 1,
            "line": 1,
            "message": "Template source must be a string; found number.",
            "offset": 0,
          },
        ],
        "ok": false,
      }
    `);
  });
});

describe('parsed once into literal and placeholder segments [TM-10]', () => {
  it('parts alternate text and references, with literal_open folded into text [TM-10]', () => {
    expect(ok('a {{x}}b{{literal_open}}c{{y?}}').parts).toMatchInlineSnapshot(`
      [
        {
          "kind": "text",
          "text": "a ",
        },
        {
          "kind": "ref",
          "ref": {
            "column": 3,
            "form": "required",
            "line": 1,
            "offset": 2,
            "path": "x",
          },
        },
        {
          "kind": "text",
          "text": "b{{c",
        },
        {
          "kind": "ref",
          "ref": {
            "column": 26,
            "form": "optional",
            "line": 1,
            "offset": 25,
            "path": "y",
          },
        },
      ]
    `);
  });

  it('a parsed template renders many times without re-parsing [TM-10]', () => {
    const t = ok('{{n}}');
    expect([1, 2, 3].map((n) => render(t, { n }))).toEqual(['1', '2', '3']);
  });

  it('grammar errors surface at parse, never at render [TM-10]', () => {
    expect(parse('{{if x}}').ok).toBe(false);
    expect(thrown(() => render('{{if x}}', {})).code).toBe('invalid_template');
  });
});

describe('refs() lists every reference [TM-11]', () => {
  it('lists each occurrence with its form and position [TM-11]', () => {
    expect(ok('{{a}}\n{{ b? }} {{untrusted c}} {{a}}').refs()).toMatchInlineSnapshot(`
      [
        {
          "column": 1,
          "form": "required",
          "line": 1,
          "offset": 0,
          "path": "a",
        },
        {
          "column": 1,
          "form": "optional",
          "line": 2,
          "offset": 6,
          "path": "b",
        },
        {
          "column": 10,
          "form": "untrusted",
          "line": 2,
          "offset": 15,
          "path": "c",
        },
        {
          "column": 26,
          "form": "required",
          "line": 2,
          "offset": 31,
          "path": "a",
        },
      ]
    `);
  });
});

describe('render reads values from a context keyed by path [TM-12]', () => {
  it('accepts a plain nested object [TM-12]', () => {
    expect(render(ok('{{run.id}}/{{event.number}}'), { run: { id: 'r1' }, event: { number: 412 } })).toBe(
      'r1/412',
    );
  });

  it('accepts any object with get(path), such as a Map [TM-12]', () => {
    const context = new Map<string, unknown>([
      ['run.id', 'r1'],
      ['event.number', 412],
    ]);
    expect(render(ok('{{run.id}}/{{event.number}}'), context)).toBe('r1/412');
    expect(render(ok('{{run.id}}'), { get: (p: string) => `<${p}>` })).toBe('<run.id>');
  });

  it('strings render as-is, integers in decimal [TM-12]', () => {
    expect(render(ok('{{a}} {{b}} {{c}} {{d}}'), { a: ' x\n', b: -7, c: 2147483647, d: 10n ** 20n })).toBe(
      ' x\n -7 2147483647 100000000000000000000',
    );
  });

  it.each([
    [1.5, 'a non-integer number'],
    [true, 'a boolean'],
    [{}, 'an object'],
    [['a'], 'an array'],
    [2 ** 60, 'an integer outside the safe range'],
    [Number.NaN, 'a non-integer number'],
  ])('%j is refused as invalid_value [TM-12]', (value, found) => {
    const error = thrown(() => render(ok('{{v}}'), { v: value }));
    expect(error.code).toBe('invalid_value');
    expect(error.path).toBe('v');
    expect(error.message).toContain(found);
  });

  it('the invalid_value message [TM-12]', () => {
    expect(thrown(() => render(ok('{{v}}'), { v: 1.5 })).message).toMatchInlineSnapshot(
      `"Cannot render v: expected a string or an integer, found a non-integer number; convert it to a string in the context."`,
    );
  });

  it('reads own properties only, never the prototype chain [TM-12]', () => {
    expect(thrown(() => render(ok('{{constructor}}'), {})).code).toBe('unresolved');
    expect(render(ok('{{constructor?}}{{a.constructor?}}'), { a: 'x' })).toBe('');
  });
});

describe('a rendered value is never scanned again [TM-13]', () => {
  it.each(['{{run.id}}', '{{literal_open}}', '{{untrusted event.body}}', '{{', '}}'])(
    'a value holding %j stays literal [TM-13]',
    (value) => {
      expect(render(ok('[{{v}}]'), { v: value, run: { id: 'NO' } })).toBe(`[${value}]`);
    },
  );
});

describe('argv rendering keeps its length (see argv.test.ts for renderArgv) [TM-14]', () => {
  it('an element holding only an absent optional is one empty element [TM-14]', async () => {
    const { renderArgv } = await import('../src/index');
    expect(renderArgv(['cmd', '{{x?}}', 'tail'], {})).toEqual(['cmd', '', 'tail']);
  });
});
