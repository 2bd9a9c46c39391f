/**
 * Codes of {@link TmplError}, the one error class of `@harness/tmpl`. Callers branch on `code`, never on
 * message text.
 */
export const TmplErrorCode = {
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
} as const;

/** One of the {@link TmplErrorCode} values. */
export type TmplErrorCode = (typeof TmplErrorCode)[keyof typeof TmplErrorCode];

/**
 * Codes of {@link TemplateIssue}: the reasons a template fails `parse` (grammar) or `checkTemplate`
 * (location allow sets). Issues are data, returned, never thrown.
 */
export const IssueCode = {
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
} as const;

/** One of the {@link IssueCode} values. */
export type IssueCode = (typeof IssueCode)[keyof typeof IssueCode];

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

/** Fields a {@link TmplError} may carry besides its code and message. */
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
 * message never contains a rendered value, so it is safe to log.
 */
export class TmplError extends Error {
  override readonly name = 'TmplError';
  readonly code: TmplErrorCode;
  readonly path: string | undefined;
  readonly index: number | undefined;
  readonly issues: readonly TemplateIssue[] | undefined;

  constructor(code: TmplErrorCode, message: string, details: TmplErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.path = details.path;
    this.index = details.index;
    this.issues = details.issues;
  }
}
