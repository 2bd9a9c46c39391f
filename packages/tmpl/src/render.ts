import { TmplErrorCode, tmplError } from './errors';
import { renderFence } from './fence';
import { type CompiledRef, parse, TemplateImpl } from './parse';
import type { ArgvElement, ContextGetter, RenderContext, RenderOptions, Template } from './types';

const hasOwn = Object.prototype.hasOwnProperty;

function toTemplate(input: Template | string, index?: number): TemplateImpl {
  if (input instanceof TemplateImpl) return input;
  // A Template from another copy of this package (or a hand-built one) is re-parsed from its source, so
  // the render loop only ever runs on parts this copy compiled.
  const source = typeof input === 'string' ? input : input?.source;
  const result = parse(source);
  if (!result.ok) {
    const where = index === undefined ? '' : ` (argv element ${index})`;
    const first = result.issues[0];
    throw tmplError(
      TmplErrorCode.invalid_template,
      `Template${where} does not parse: ${first?.message ?? 'unknown issue'}${result.issues.length > 1 ? ` (and ${result.issues.length - 1} more issues)` : ''}`,
      index === undefined ? { issues: result.issues } : { issues: result.issues, index },
    );
  }
  return result.template as TemplateImpl;
}

function isGetter(context: RenderContext): context is ContextGetter {
  return typeof (context as { get?: unknown }).get === 'function';
}

function lookup(context: RenderContext, getter: boolean, part: CompiledRef): unknown {
  if (getter) return (context as ContextGetter).get(part.ref.path);
  let value: unknown = context;
  for (const key of part.segments) {
    // Own properties only: a path such as `constructor` must not reach the prototype chain.
    if (value === null || typeof value !== 'object' || !hasOwn.call(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'number')
    return Number.isInteger(value) ? 'an integer outside the safe range' : 'a non-integer number';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function scalar(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  throw tmplError(
    TmplErrorCode.invalid_value,
    `Cannot render ${path}: expected a string or an integer, found ${describe(value)}; convert it to a string in the context.`,
    { path },
  );
}

/** Renders one compiled part; `undefined` only for an absent optional that the caller treats as empty. */
function piece(part: CompiledRef, context: RenderContext, getter: boolean, options: RenderOptions): string {
  const value = lookup(context, getter, part);
  const { path, form } = part.ref;
  if (form === 'untrusted') {
    return renderFence(value === undefined || value === null ? undefined : scalar(value, path), {
      field: path,
      ...(options.fenceSource === undefined ? {} : { source: options.fenceSource }),
      ...(options.randomBytes === undefined ? {} : { randomBytes: options.randomBytes }),
      ...(options.onWarn === undefined ? {} : { onWarn: options.onWarn }),
    });
  }
  if (value === undefined || value === null) {
    if (form === 'optional') return '';
    throw tmplError(
      TmplErrorCode.unresolved,
      `Unresolved required value ${path}: the render context has no value for {{${path}}}; supply it, or write {{${path}?}} to render empty when absent.`,
      { path },
    );
  }
  return scalar(value, path);
}

const NO_OPTIONS: RenderOptions = {};

/**
 * Renders a template against a context and returns the string. Values are inserted as-is and never
 * scanned again, so a value holding `{{run.id}}` stays literal.
 *
 * `template` may be a parsed template (parse once at load, render many) or a source string (parsed on
 * the spot; a grammar error throws `invalid_template`). Throws `TmplError` with `code: 'unresolved'` and
 * `path` for a missing required value, `invalid_value` for a value that is neither a string nor an integer.
 * An absent `{{path?}}` renders empty; `{{untrusted path}}` renders the fence (see `renderFence`). Location
 * rules are load-time checks (`checkTemplate`); `render` does not repeat them.
 */
export function render(
  template: Template | string,
  context: RenderContext,
  options: RenderOptions = NO_OPTIONS,
): string {
  const compiled = toTemplate(template).compiled;
  const getter = isGetter(context);
  let out = '';
  for (let i = 0; i < compiled.length; i++) {
    const part = compiled[i]!;
    out += typeof part === 'string' ? part : piece(part, context, getter, options);
  }
  return out;
}

function isDoubleDash(template: TemplateImpl): boolean {
  return template.compiled.length === 1 && template.compiled[0] === '--';
}

/**
 * Renders an argv template element by element: the result has exactly as many strings as `elements`, and
 * no value is ever split, re-parsed or joined with its neighbours (an element holding only an absent
 * `{{x?}}` becomes one empty string).
 *
 * Each element may be a source string or a parsed template. Throws `TmplError` with `index` set:
 * `flag_injection` when an element's first character comes from a substituted value beginning with `-`
 * (so `--config=x` cannot become an option), unless an earlier element is the literal `--` **and** the
 * value's path is in `options.allowLeadingDash` (a `--` protects only programs that honour it); `nul_byte` when a
 * rendered element holds NUL; `untrusted_in_argv` for an `{{untrusted …}}` placeholder; and the errors of
 * {@link render}. A literal element starting with `-` (`--verbose`) is fine: only values are suspect.
 */
export function renderArgv(
  elements: readonly ArgvElement[],
  context: RenderContext,
  options: RenderOptions = NO_OPTIONS,
): string[] {
  const getter = isGetter(context);
  const out: string[] = new Array(elements.length);
  let afterDoubleDash = false;
  for (let index = 0; index < elements.length; index++) {
    const template = toTemplate(elements[index]!, index);
    let element = '';
    for (const part of template.compiled) {
      if (typeof part === 'string') {
        element += part;
        continue;
      }
      const { path } = part.ref;
      if (part.ref.form === 'untrusted') {
        throw tmplError(
          TmplErrorCode.untrusted_in_argv,
          `argv element ${index} holds {{untrusted ${path}}}: free text never goes into argv; pass the agent {{event.file}} or use a prompt template.`,
          { path, index },
        );
      }
      const value = piece(part, context, getter, options);
      if (value.includes('\0')) {
        throw tmplError(
          TmplErrorCode.nul_byte,
          `argv element ${index}: the value of ${path} holds a NUL byte, which no process argument can carry; remove it from the value.`,
          { path, index },
        );
      }
      if (element === '' && value.charCodeAt(0) === 45 /* - */) {
        if (!afterDoubleDash) {
          throw tmplError(
            TmplErrorCode.flag_injection,
            `argv element ${index} would start with the value of ${path}, which begins with "-" and would be read as an option; put a literal prefix in the element, or (for a program that honours "--") a literal "--" element before it and allow ${path} a leading dash.`,
            { path, index },
          );
        }
        if (!options.allowLeadingDash?.includes(path)) {
          throw tmplError(
            TmplErrorCode.flag_injection,
            `argv element ${index} would start with the value of ${path}, which begins with "-"; a literal "--" before it protects only programs that honour "--" (find reads "-delete" after it as an action), so it is refused. Allow ${path} a leading dash only if this program honours "--".`,
            { path, index },
          );
        }
      }
      element += value;
    }
    if (element.includes('\0')) {
      throw tmplError(
        TmplErrorCode.nul_byte,
        `argv element ${index} holds a NUL byte in its literal text, which no process argument can carry; remove it from the template.`,
        { index },
      );
    }
    out[index] = element;
    if (isDoubleDash(template)) afterDoubleDash = true;
  }
  return out;
}
