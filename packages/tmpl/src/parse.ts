import { checkTemplate } from './check';
import { IssueCode, type TemplateIssue } from './errors';
import type { ParseOptions, ParseResult, RefForm, Template, TemplatePart, TemplateRef } from './types';

const PATH_RE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
// Whitespace "just inside the braces" (TM-07); the same set separates `untrusted` from its path.
const UNTRUSTED_RE = /^untrusted[ \t\r\n]+([\s\S]*)$/;
const RESERVED = new Set(['literal_open', 'untrusted']);
// Enough to show every problem in any sane template while bounding work on hostile input.
const MAX_ISSUES = 100;

/** @internal Compiled part used by the render path: a ref carries its path pre-split. */
export interface CompiledRef {
  readonly ref: TemplateRef;
  readonly segments: readonly string[];
}

/** @internal */
export class TemplateImpl implements Template {
  readonly source: string;
  readonly parts: readonly TemplatePart[];
  /** @internal Literal strings and compiled refs, alternating freely; the render loop reads only this. */
  readonly compiled: readonly (string | CompiledRef)[];
  readonly #refs: readonly TemplateRef[];

  constructor(source: string, parts: TemplatePart[]) {
    this.source = source;
    this.parts = Object.freeze(parts);
    const refs: TemplateRef[] = [];
    const compiled: (string | CompiledRef)[] = [];
    for (const part of parts) {
      if (part.kind === 'text') compiled.push(part.text);
      else {
        refs.push(part.ref);
        compiled.push({ ref: part.ref, segments: part.ref.path.split('.') });
      }
    }
    this.#refs = Object.freeze(refs);
    this.compiled = compiled;
  }

  refs(): readonly TemplateRef[] {
    return this.#refs;
  }
}

/**
 * @internal Line and column (1-based) of offsets visited in increasing order, in linear time overall
 * (a hostile source with thousands of placeholders must not cost quadratic time).
 */
export function positions(source: string): (offset: number) => { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  let next = source.indexOf('\n');
  return (offset) => {
    while (next !== -1 && next < offset) {
      line++;
      lineStart = next + 1;
      next = source.indexOf('\n', next + 1);
    }
    return { line, column: offset - lineStart + 1 };
  };
}

/** @internal Line and column (1-based) of one offset. */
export function position(source: string, offset: number): { line: number; column: number } {
  return positions(source)(offset);
}

/** @internal */
export function issueAt(
  where: { line: number; column: number },
  code: IssueCode,
  offset: number,
  message: string,
  path?: string,
): TemplateIssue {
  const { line, column } = where;
  const issue: TemplateIssue = { code, message, offset, line, column };
  return path === undefined ? issue : { ...issue, path };
}

function show(text: string): string {
  const cut = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return JSON.stringify(cut);
}

const FORMS_HINT =
  'expected one of {{path}}, {{path?}}, {{untrusted path}} or {{literal_open}} (there are no functions, filters or conditionals)';

type Classified =
  | { kind: 'literal_open' }
  | { kind: 'ref'; path: string; form: RefForm }
  | { kind: 'error'; code: IssueCode; message: string };

function isWs(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

// A hand-written trim: a lazy regex such as /^\s*(.*?)\s*$/ backtracks quadratically on long runs of
// inner whitespace, and parse must stay linear on hostile input.
function trimWs(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isWs(text.charCodeAt(start))) start++;
  while (end > start && isWs(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

function classify(inner: string): Classified {
  const body = trimWs(inner);
  if (body === 'literal_open') return { kind: 'literal_open' };
  let path = body;
  let form: RefForm = 'required';
  const untrusted = UNTRUSTED_RE.exec(body);
  if (untrusted) {
    path = untrusted[1] ?? '';
    form = 'untrusted';
  } else if (body.endsWith('?')) {
    path = body.slice(0, -1);
    form = 'optional';
  }
  if (body === '') {
    return {
      kind: 'error',
      code: IssueCode.invalid_placeholder,
      message: `Empty placeholder {{}}: ${FORMS_HINT}.`,
    };
  }
  if (RESERVED.has(path)) {
    return {
      kind: 'error',
      code: IssueCode.invalid_placeholder,
      message: `Invalid placeholder {{${body}}}: "${path}" is a keyword, not a path; ${FORMS_HINT}.`,
    };
  }
  if (!PATH_RE.test(path)) {
    // A word followed by more words reads as a function call or keyword: say so rather than "bad path".
    if (form !== 'untrusted' && /[ \t\r\n(|"]/.test(path)) {
      return {
        kind: 'error',
        code: IssueCode.invalid_placeholder,
        message: `Invalid placeholder {{${show(body).slice(1, -1)}}}: found ${show(body)}; ${FORMS_HINT}.`,
      };
    }
    return {
      kind: 'error',
      code: IssueCode.invalid_path,
      message: `Invalid path ${show(path)} in a placeholder: expected lowercase dotted segments such as run.id or event.meta.team (each segment [a-z][a-z0-9_]*).`,
    };
  }
  return { kind: 'ref', path, form };
}

/**
 * Parses a template source into literal and placeholder segments. Never throws, whatever the input.
 *
 * Exactly four forms are recognised: `{{path}}`, `{{path?}}`, `{{untrusted path}}` and `{{literal_open}}`
 * (which renders `{{`). Whitespace just inside the braces is ignored; a lone `}}` is literal text; any
 * other `{{…` (including an unclosed one) is an issue. `literal_open` and `untrusted` are keywords and
 * cannot be paths. With `options.location` and `options.context`, the references are also checked against
 * that location's allow set (see `checkTemplate`), so one call does all load-time checking.
 */
export function parse(source: string, options: ParseOptions = {}): ParseResult {
  if (typeof source !== 'string') {
    return {
      ok: false,
      issues: [
        {
          code: IssueCode.not_a_string,
          message: `Template source must be a string; found ${source === null ? 'null' : typeof source}.`,
          offset: 0,
          line: 1,
          column: 1,
        },
      ],
    };
  }
  const pos = positions(source);
  const issues: TemplateIssue[] = [];
  const parts: TemplatePart[] = [];
  let text = '';
  let at = 0;
  while (at < source.length && issues.length < MAX_ISSUES) {
    const open = source.indexOf('{{', at);
    if (open === -1) break;
    const close = source.indexOf('}}', open + 2);
    if (close === -1) {
      issues.push(
        issueAt(
          pos(open),
          IssueCode.unclosed_placeholder,
          open,
          'Unclosed placeholder: found "{{" with no "}}" after it; close it, or write {{literal_open}} for literal braces.',
        ),
      );
      at = source.length;
      break;
    }
    text += source.slice(at, open);
    const c = classify(source.slice(open + 2, close));
    if (c.kind === 'literal_open') text += '{{';
    else if (c.kind === 'error') issues.push(issueAt(pos(open), c.code, open, c.message));
    else {
      if (text !== '') parts.push({ kind: 'text', text });
      text = '';
      const { line, column } = pos(open);
      parts.push({
        kind: 'ref',
        ref: Object.freeze({ path: c.path, form: c.form, offset: open, line, column }),
      });
    }
    at = close + 2;
  }
  if (issues.length > 0) return { ok: false, issues };
  text += source.slice(at);
  if (text !== '') parts.push({ kind: 'text', text });
  const template = new TemplateImpl(source, parts);
  if (options.location !== undefined && options.context !== undefined) {
    const located = checkTemplate(template, {
      location: options.location,
      context: options.context,
      ...(options.untrustedInline === undefined ? {} : { untrustedInline: options.untrustedInline }),
      ...(options.onWarn === undefined ? {} : { onWarn: options.onWarn }),
    });
    if (located.length > 0) return { ok: false, issues: located };
  }
  return { ok: true, template };
}
