import { CodedError, type CodeOf, type DetailsOf, defineCodes } from '@harness/errors';

/**
 * Codes of {@link TmplError}, the one error class of `@harness/tmpl`. Callers branch on `code`, never on
 * message text.
 */
export const TmplErrorCode = defineCodes({
  /** A required `{{path}}` had no value in the render context. `error.path` names it. */
  unresolved: 'unresolved',
  /** A value was present but is neither a string nor an integer (a float, boolean, object, …). */
  invalid_value: 'invalid_value',
  /** A rendered argv element holds a NUL byte, which no argv can carry. */
  nul_byte: 'nul_byte',
  /** An argv element starts with a substituted value beginning with `-`, and no literal `--` precedes it. */
  flag_injection: 'flag_injection',
  /** An `{{untrusted …}}` placeholder reached argv rendering; the fence belongs to prompts only. */
  untrusted_in_argv: 'untrusted_in_argv',
  /** A source string handed to a rendering function failed to parse; `error.issues` lists why. */
  invalid_template: 'invalid_template',
  /** The random source kept returning nonces the fenced content holds (only a broken `randomBytes` does). */
  nonce_unavailable: 'nonce_unavailable',
  /** A context declaration (see `defineContext`) is malformed: a programming error in the caller. */
  invalid_declaration: 'invalid_declaration',
});

/** One of the {@link TmplErrorCode} values. */
export type TmplErrorCode = CodeOf<typeof TmplErrorCode>;

/**
 * Codes of {@link TemplateIssue}: the reasons a template fails `parse` (grammar) or `checkTemplate`
 * (location allow sets). Issues are data, returned, never thrown.
 */
export const IssueCode = defineCodes({
  /** The input handed to `parse` was not a string. */
  not_a_string: 'not_a_string',
  /** A `{{` with no `}}` after it. Write `{{literal_open}}` for literal braces. */
  unclosed_placeholder: 'unclosed_placeholder',
  /** `{{…}}` is not one of the four forms (e.g. `{{if x}}`, `{{}}`, `{{printf "%s" x}}`). */
  invalid_placeholder: 'invalid_placeholder',
  /** The path in a placeholder does not match `^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$`. */
  invalid_path: 'invalid_path',
  /** The path is not in the declared context table. */
  unknown_path: 'unknown_path',
  /** The path exists but its declaration does not allow it in this location (e.g. `prompt` in a prompt). */
  path_not_allowed: 'path_not_allowed',
  /** A free-text (untrusted-only) path used as `{{path}}` or `{{path?}}`; it may only be fenced. */
  untrusted_only_path: 'untrusted_only_path',
  /** `{{untrusted …}}` outside a prompt template (in argv or env). */
  fence_outside_prompt: 'fence_outside_prompt',
  /** `{{untrusted …}}` in a prompt template whose owner did not set `untrustedInline`. */
  fence_not_enabled: 'fence_not_enabled',
  /** A `credential.*` path outside `env`. */
  credential_outside_env: 'credential_outside_env',
});

/** One of the {@link IssueCode} values. */
export type IssueCode = CodeOf<typeof IssueCode>;

/**
 * One problem found in a template source. `offset` is a 0-based index into the source string (UTF-16 code
 * units, as JavaScript indexes strings); `line` and `column` are 1-based, the column counted in the same
 * units. `path` is set when the issue concerns one reference.
 */
export interface TemplateIssue {
  readonly code: IssueCode;
  readonly message: string;
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  readonly path?: string;
}

/**
 * The `details` of each {@link TmplErrorCode}: the context path concerned (`path`), the argv element
 * (`index`, `renderArgv` only) and the parse issues behind `invalid_template` (`issues`).
 * `invalid_declaration` carries none.
 */
export interface TmplErrorDetailsByCode {
  readonly unresolved: { readonly path: string };
  readonly invalid_value: { readonly path: string };
  /** `path` is absent when the NUL byte is in the element's literal text. */
  readonly nul_byte: { readonly index: number; readonly path?: string };
  readonly flag_injection: { readonly path: string; readonly index: number };
  readonly untrusted_in_argv: { readonly path: string; readonly index: number };
  /** `index` is present when the source was an argv element. */
  readonly invalid_template: { readonly issues: readonly TemplateIssue[]; readonly index?: number };
  /** The fenced field. */
  readonly nonce_unavailable: { readonly path: string };
}

/** Fields a {@link TmplError} may be constructed with besides its code and message (every code's details, flat). */
export interface TmplErrorDetails {
  /** The context path concerned (`unresolved`, `invalid_value`, `flag_injection`). */
  readonly path?: string;
  /** The argv element index concerned (`renderArgv` only). */
  readonly index?: number;
  /** The parse issues behind an `invalid_template` error. */
  readonly issues?: readonly TemplateIssue[];
  readonly cause?: unknown;
}

/**
 * The one error class of `@harness/tmpl`, thrown by rendering (parsing returns issues instead). Its
 * message never contains a rendered value, so it is safe to log. `details` is typed per code
 * ({@link TmplErrorDetailsByCode}); `path`, `index` and `issues` read the same fields from it.
 */
export class TmplError extends CodedError<TmplErrorCode, TmplErrorDetailsByCode> {
  override readonly name = 'TmplError';

  constructor(code: TmplErrorCode, message: string, details: TmplErrorDetails = {}) {
    const { cause, ...fields } = details;
    super(code, message, {
      ...(cause === undefined ? {} : { cause }),
      ...(Object.keys(fields).length === 0
        ? {}
        : { details: fields as DetailsOf<TmplErrorDetailsByCode, TmplErrorCode> }),
    });
  }

  /** The context path concerned (`details.path`), where the code has one. */
  get path(): string | undefined {
    return (this.details as TmplErrorDetails | undefined)?.path;
  }

  /** The argv element index concerned (`details.index`), for errors of `renderArgv`. */
  get index(): number | undefined {
    return (this.details as TmplErrorDetails | undefined)?.index;
  }

  /** The parse issues behind an `invalid_template` error (`details.issues`). */
  get issues(): readonly TemplateIssue[] | undefined {
    return (this.details as TmplErrorDetails | undefined)?.issues;
  }
}

/** Builds the error of `code` with the details that code declares; the one place this package makes one. */
export function tmplError<C extends TmplErrorCode>(
  code: C,
  message: string,
  details: DetailsOf<TmplErrorDetailsByCode, C>,
): TmplError {
  return new TmplError(code, message, details ?? {});
}
