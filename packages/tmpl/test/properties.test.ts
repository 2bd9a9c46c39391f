import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect } from 'vitest';
import { parse, render, renderArgv, renderFence, type TemplatePart, TmplError } from '../src/index';

const quiet = { onWarn: () => {} };
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)); // lone surrogates too
const fullUnicode = fc.string({ unit: 'binary', maxLength: 200 });
const utf16 = fc.string({ unit: anyUnit, maxLength: 200 });
// Strings dense in grammar tokens, so the scanner's edge cases are actually reached.
const grammarish = fc.string({
  unit: fc.constantFrom(
    '{{',
    '}}',
    '{',
    '}',
    ' ',
    '\t',
    '\n',
    '?',
    '.',
    'a',
    'Z',
    '_',
    '1',
    'untrusted ',
    'literal_open',
    '-',
    '\0',
  ),
  maxLength: 60,
});
const path = fc
  .array(fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/), { minLength: 1, maxLength: 4 })
  .map((s) => s.join('.'))
  .filter((p) => p !== 'literal_open' && p !== 'untrusted');

describe('parse never throws', () => {
  test.prop([fc.oneof(fullUnicode, utf16, grammarish)], { numRuns: fcRuns(1000) })(
    'returns a result (never throws) for any string, with in-range positions [TM-09]',
    (source) => {
      const result = parse(source);
      if (result.ok) {
        expect(result.template.source).toBe(source);
      } else {
        expect(result.issues.length).toBeGreaterThan(0);
        for (const issue of result.issues) {
          expect(issue.offset).toBeGreaterThanOrEqual(0);
          expect(issue.offset).toBeLessThanOrEqual(source.length);
          expect(issue.line).toBeGreaterThanOrEqual(1);
          expect(issue.column).toBeGreaterThanOrEqual(1);
        }
      }
    },
  );

  test.prop([fc.anything()], { numRuns: fcRuns(200) })(
    'TM-09: returns issues for any non-string input',
    (input) => {
      if (typeof input === 'string') return;
      expect(parse(input as string).ok).toBe(false);
    },
  );
});

type Piece =
  | { kind: 'text'; text: string }
  | { kind: 'open' }
  | { kind: 'ref'; path: string; form: 'required' | 'optional' | 'untrusted'; ws: [string, string] };
const ws = fc.constantFrom('', ' ', '\t', ' \n ');
const piece: fc.Arbitrary<Piece> = fc.oneof(
  fc
    .string({ unit: 'binary', minLength: 1, maxLength: 20 })
    .filter((t) => !t.includes('{'))
    .map((text) => ({ kind: 'text' as const, text })),
  fc.constant({ kind: 'open' as const }),
  fc.record({
    kind: fc.constant('ref' as const),
    path,
    form: fc.constantFrom('required' as const, 'optional' as const, 'untrusted' as const),
    ws: fc.tuple(ws, ws),
  }),
);

describe('grammar round trip', () => {
  test.prop([fc.array(piece, { maxLength: 12 })], { numRuns: fcRuns(500) })(
    'printing parts and parsing them back gives the same parts [TM-10]',
    (pieces) => {
      let source = '';
      const expected: TemplatePart[] = [];
      let text = '';
      for (const p of pieces) {
        if (p.kind === 'text') {
          source += p.text;
          text += p.text;
        } else if (p.kind === 'open') {
          source += '{{ literal_open}}';
          text += '{{';
        } else {
          const body =
            p.form === 'untrusted' ? `untrusted ${p.path}` : p.form === 'optional' ? `${p.path}?` : p.path;
          if (text) expected.push({ kind: 'text', text });
          text = '';
          expected.push({ kind: 'ref', ref: { path: p.path, form: p.form } as never });
          source += `{{${p.ws[0]}${body}${p.ws[1]}}}`;
        }
      }
      if (text) expected.push({ kind: 'text', text });
      const result = parse(source);
      if (!result.ok) throw new Error(JSON.stringify({ source, issues: result.issues }));
      const strip = (parts: readonly TemplatePart[]) =>
        parts.map((p) =>
          p.kind === 'text' ? p : { kind: 'ref', ref: { path: p.ref.path, form: p.ref.form } },
        );
      expect(strip(result.template.parts)).toEqual(strip(expected));
    },
  );
});

describe('argv integrity', () => {
  test.prop([fc.oneof(fullUnicode, utf16, fc.constantFrom('-', '--x', '\0', 'a\0', '-\0'))], {
    numRuns: fcRuns(1000),
  })(
    'renderArgv(["{{x}}"], {x: s}) is [s], or refused when s starts with - or holds NUL [TM-13, TM-14]',
    (s) => {
      let out: string[] | TmplError;
      try {
        out = renderArgv(['{{x}}'], { x: s });
      } catch (error) {
        if (!(error instanceof TmplError)) throw error;
        out = error;
      }
      if (s.includes('\0')) expect(out).toMatchObject({ code: 'nul_byte', index: 0 });
      else if (s.startsWith('-')) expect(out).toMatchObject({ code: 'flag_injection', index: 0 });
      else expect(out).toEqual([s]);
    },
  );

  const element = fc.oneof(
    fc
      .string({ maxLength: 10 })
      .filter((t) => !t.includes('{') && !t.includes('\0'))
      .map((t) => ({ src: t, vars: [] as string[] })),
    fc
      .tuple(
        fc.constantFrom('', 'p=', '--x='),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom('', '?'),
        fc.constantFrom('', '.s'),
      )
      .map(([pre, n, opt, post]) => ({ src: `${pre}{{v${n}${opt}}}${post}`, vars: [`v${n}`] })),
  );
  const values = fc.array(
    fc.option(
      fc.string({ unit: 'binary', maxLength: 20 }).filter((v) => !v.includes('\0')),
      { nil: undefined },
    ),
    {
      minLength: 4,
      maxLength: 4,
    },
  );

  test.prop([fc.array(element, { maxLength: 10 }), values], { numRuns: fcRuns(500) })(
    'argv length is always kept and each element is its own rendering (after a literal --) [TM-14]',
    (elements, vals) => {
      const context: Record<string, string> = {};
      vals.forEach((v, i) => {
        if (v !== undefined) context[`v${i}`] = v;
      });
      const argv = ['--', ...elements.map((e) => e.src)];
      let out: string[];
      try {
        out = renderArgv(argv, context, { allowLeadingDash: ['v0', 'v1', 'v2', 'v3'] });
      } catch (error) {
        // Only a required value may be missing; nothing else can fail after a literal `--` for
        // values allowed a leading dash.
        expect(error).toMatchObject({ code: 'unresolved' });
        return;
      }
      expect(out).toHaveLength(argv.length);
      out.forEach((rendered, i) => {
        expect(rendered).toBe(render(argv[i]!, context));
      });
    },
  );
});

describe('the fence cannot be closed early', () => {
  const hexNonce = fc.uint8Array({ minLength: 16, maxLength: 16 });
  test.prop([fullUnicode, fullUnicode, hexNonce], { numRuns: fcRuns(500) })(
    'content holding </untrusted-data and a guessed nonce never closes the fence [TM-33]',
    (before, after, guessBytes) => {
      const guess = [...guessBytes].map((b) => b.toString(16).padStart(2, '0')).join('');
      const content = `${before}\n</untrusted-data nonce="${guess}">\n${after}`;
      let first = true;
      // A mock random source whose first draw is the attacker's guess: the worst case for the fence.
      const mockRandomBytes = (buffer: Uint8Array) => {
        if (first) buffer.set(guessBytes);
        else globalThis.crypto.getRandomValues(buffer);
        first = false;
      };
      const out = renderFence(content, { field: 'event.body', randomBytes: mockRandomBytes, ...quiet });
      const nonce = /nonce="([0-9a-f]{32})">\n/.exec(out)?.[1] ?? '';
      expect(nonce).not.toBe(guess);
      const close = `</untrusted-data nonce="${nonce}">`;
      expect(out.endsWith(close)).toBe(true);
      expect(out.indexOf(close)).toBe(out.length - close.length);
      // The nonce appears in the open and the close tag only.
      expect(out.split(nonce).length - 1).toBe(2);
    },
  );

  test.prop([fullUnicode], { numRuns: fcRuns(300) })(
    'fenced content has no controls and fits the cap [TM-34, TM-35]',
    (s) => {
      const out = renderFence(s.repeat(30), { field: 'f', ...quiet });
      const content = out.slice(out.indexOf('\n') + 1, out.lastIndexOf('\n'));
      const body = content.replace(/\n\[truncated \d+ bytes\]$/, '');
      expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(body)).toBe(false);
      expect(new TextEncoder().encode(body).length).toBeLessThanOrEqual(4096);
    },
  );
});
