import type { TemplateIssue } from './errors';

/** How a placeholder reads its path: `{{p}}` required, `{{p?}}` optional, `{{untrusted p}}` fenced. */
export type RefForm = 'required' | 'optional' | 'untrusted';

/**
 * Where a template is used. Each location accepts different forms: `argv` and `env` take `required` and
 * `optional` only; `prompt` also takes `untrusted` when the owner sets `untrustedInline`. A `credential.*`
 * path is legal in `env` only, whatever a declaration says.
 */
export type Location = 'argv' | 'prompt' | 'env';

/** One reference in a template: its path, its form, and where it sits in the source. */
export interface TemplateRef {
  readonly path: string;
  readonly form: RefForm;
  /** 0-based UTF-16 offset of the opening `{{` in the source. */
  readonly offset: number;
  /** 1-based line of the opening `{{`. */
  readonly line: number;
  /** 1-based column (UTF-16 units) of the opening `{{`. */
  readonly column: number;
}

/**
 * One segment of a parsed template: literal text (with each `{{literal_open}}` already turned into `{{`,
 * and adjacent text merged) or a reference.
 */
export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'ref'; readonly ref: TemplateRef };

/**
 * A parsed template: parse once (at load), render many times. Obtain one from `parse`; the shape is
 * read-only and carries no behaviour beyond `refs()`, so it is safe to share.
 */
export interface Template {
  /** The source text exactly as given to `parse`. */
  readonly source: string;
  /** Literal and reference segments in order; empty for an empty source. */
  readonly parts: readonly TemplatePart[];
  /** Every reference, in source order, one entry per occurrence (a path used twice appears twice). */
  refs(): readonly TemplateRef[];
}

/** What `parse` returns: the template, or every issue found (it never throws). */
export type ParseResult =
  | { readonly ok: true; readonly template: Template }
  | { readonly ok: false; readonly issues: readonly TemplateIssue[] };

/**
 * One entry of a context table: a path that templates may reference, and where.
 *
 * `path` is a dotted path in the template grammar, in which a segment `*` matches exactly one segment of
 * any name (`event.meta.*` matches `event.meta.team`, but neither `event.meta` nor `event.meta.a.b`).
 * When several entries match, an exact entry wins over a wildcard one, then the earlier-declared one.
 */
export interface PathSpec {
  readonly path: string;
  /**
   * Free text from outside (an issue title, a comment body): the path may appear only as
   * `{{untrusted path}}`, i.e. fenced, in a prompt with `untrustedInline`. Default `false`.
   */
  readonly untrustedOnly?: boolean;
  /** Locations in which the path may appear. Default: all three. */
  readonly locations?: readonly Location[];
  /** A human description, shown by tooling; not used by checks. */
  readonly description?: string;
}

/**
 * A compiled context table, made by `defineContext`: the set of paths that exist, each with its allow
 * set. It holds no values; checking a template against it never sees a run's values.
 */
export interface ContextDeclaration {
  readonly paths: readonly PathSpec[];
  /** The entry governing `path`, or `undefined` when the path is not declared. */
  match(path: string): PathSpec | undefined;
}

/** A warning the package reports through `onWarn` (default: `console.warn`). */
export interface TmplWarning {
  /** `untrusted_inline_enabled`: a prompt was checked with the fence enabled (at load). `untrusted_render`: a fenced value was rendered. */
  readonly code: 'untrusted_inline_enabled' | 'untrusted_render';
  readonly message: string;
  readonly path?: string;
}

/** Receives warnings; use it to route them to your logger. */
export type WarnHandler = (warning: TmplWarning) => void;

/** Options of `checkTemplate`, and the location-checking part of `parse`'s options. */
export interface CheckOptions {
  /** Where the template is used. */
  readonly location: Location;
  /** The declared context table (from `defineContext`). */
  readonly context: ContextDeclaration;
  /** Allow `{{untrusted …}}` in a `prompt`. Default `false`; enabling it emits an `untrusted_inline_enabled` warning. */
  readonly untrustedInline?: boolean;
  readonly onWarn?: WarnHandler;
}

/**
 * Options of `parse`. With `location` and `context` both given, the parsed template is also checked
 * against the allow sets (as `checkTemplate` does) and location issues are returned with grammar issues.
 */
export interface ParseOptions {
  readonly location?: Location;
  readonly context?: ContextDeclaration;
  readonly untrustedInline?: boolean;
  readonly onWarn?: WarnHandler;
}

/** A context that resolves whole dotted paths itself (a `Map<string, unknown>` qualifies). */
export interface ContextGetter {
  get(path: string): unknown;
}

/**
 * Values to render: a plain nested object (`{ run: { id: 'r1' } }`, read by own properties only) or any
 * object with a `get(path)` method. `undefined` and `null` mean absent. A value must be a string (rendered
 * as-is) or an integer (number or bigint, rendered in decimal); anything else is an `invalid_value` error.
 */
export type RenderContext = ContextGetter | { readonly [key: string]: unknown };

/** Options of `render` and `renderArgv`. */
export interface RenderOptions {
  /** The `source` attribute of fenced blocks (e.g. the event source `webhook.gitea-pr`). Default `unknown`. */
  readonly fenceSource?: string;
  /** Receives an `untrusted_render` warning for every fenced value. Default: `console.warn`. */
  readonly onWarn?: WarnHandler;
  /**
   * Fills a buffer with random bytes for the fence nonce. Default: Web Crypto `getRandomValues`. Replace
   * it only in tests (to force a nonce collision); it must be a CSPRNG otherwise.
   */
  readonly randomBytes?: (buffer: Uint8Array) => void;
  /**
   * `renderArgv` only: the paths whose value may begin an argv element with `-`, provided a literal
   * `--` element comes before it. Default: none, so such a value is refused even after `--` (a
   * literal `--` protects only programs that honour it: `find -- -delete` still deletes). Name a
   * path here only when the program reading that element honours `--`.
   */
  readonly allowLeadingDash?: readonly string[];
}

/** An argv element for `renderArgv`: a source string (parsed on the spot) or a template parsed at load. */
export type ArgvElement = string | Template;
