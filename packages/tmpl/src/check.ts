import { IssueCode, type TemplateIssue, TmplError, TmplErrorCode } from './errors';
import type { CheckOptions, ContextDeclaration, Location, PathSpec, Template, TemplateRef } from './types';

const PATTERN_RE = /^([a-z][a-z0-9_]*|\*)(\.([a-z][a-z0-9_]*|\*))*$/;
const LOCATIONS: readonly Location[] = ['argv', 'prompt', 'env'];

interface Compiled {
  readonly spec: PathSpec;
  readonly segments: readonly string[];
  readonly wildcards: number;
  readonly order: number;
}

/**
 * Compiles a context table: the paths templates may reference and, per path, where and how.
 *
 * Throws `TmplError` `invalid_declaration` on a malformed entry (bad pattern, unknown location, a path
 * declared twice): a declaration is code, so a mistake in it is a bug to fix, not input to report.
 * A `credential.*` entry may list any locations, but `checkTemplate` still refuses it outside `env`.
 */
export function defineContext(paths: readonly PathSpec[]): ContextDeclaration {
  const exact = new Map<string, PathSpec>();
  const wild: Compiled[] = [];
  paths.forEach((spec, order) => {
    if (typeof spec?.path !== 'string' || !PATTERN_RE.test(spec.path)) {
      throw new TmplError(
        TmplErrorCode.invalid_declaration,
        `Invalid context path pattern ${JSON.stringify(spec?.path)} at entry ${order}: expected dotted segments [a-z][a-z0-9_]* or *, such as event.meta.*.`,
      );
    }
    for (const location of spec.locations ?? []) {
      if (!LOCATIONS.includes(location)) {
        throw new TmplError(
          TmplErrorCode.invalid_declaration,
          `Invalid location ${JSON.stringify(location)} for context path ${spec.path}: expected argv, prompt or env.`,
        );
      }
    }
    const duplicate = exact.has(spec.path) || wild.some((w) => w.spec.path === spec.path);
    if (duplicate) {
      throw new TmplError(
        TmplErrorCode.invalid_declaration,
        `Context path ${spec.path} is declared twice: declare each path once.`,
      );
    }
    const segments = spec.path.split('.');
    const wildcards = segments.filter((s) => s === '*').length;
    if (wildcards === 0) exact.set(spec.path, spec);
    else wild.push({ spec, segments, wildcards, order });
  });
  // Fewer wildcards first (more specific), then declaration order: the first match is the winner.
  wild.sort((a, b) => a.wildcards - b.wildcards || a.order - b.order);
  const frozen = Object.freeze([...paths]);
  return Object.freeze({
    paths: frozen,
    match(path: string): PathSpec | undefined {
      const hit = exact.get(path);
      if (hit) return hit;
      const segments = path.split('.');
      for (const w of wild) {
        if (w.segments.length !== segments.length) continue;
        if (w.segments.every((s, i) => s === '*' || s === segments[i])) return w.spec;
      }
      return undefined;
    },
  });
}

function isCredential(path: string): boolean {
  return path === 'credential' || path.startsWith('credential.');
}

/**
 * Checks every reference of a parsed template against the allow set of one location; returns the issues
 * (empty when the template is fine). Reports at most one issue per reference, the first that applies of:
 * `fence_outside_prompt` (`{{untrusted …}}` in argv or env), `credential_outside_env` (a `credential.*` path anywhere but env, declared or not),
 * `unknown_path`, `untrusted_only_path` (free text used outside the fence), `path_not_allowed` (declared,
 * but not for this location) and `fence_not_enabled` (`{{untrusted …}}` in a prompt without
 * `untrustedInline`). The fence accepts any declared path allowed in a prompt, not only
 * untrusted-only ones: fencing a trusted value only makes it inert.
 *
 * With `untrustedInline: true` on a prompt, emits one `untrusted_inline_enabled` warning per call.
 */
export function checkTemplate(template: Template, options: CheckOptions): readonly TemplateIssue[] {
  const { location, context } = options;
  const inline = options.untrustedInline === true;
  if (inline && location === 'prompt') {
    (options.onWarn ?? defaultWarn)({
      code: 'untrusted_inline_enabled',
      message:
        'untrustedInline is enabled: free text from outside (issue titles, comment bodies) may be placed in this prompt inside the untrusted fence. Prefer pointing the agent at {{event.file}}.',
    });
  }
  const issues: TemplateIssue[] = [];
  for (const ref of template.refs()) {
    const problem = refProblem(ref, location, context, inline);
    if (problem) {
      const [code, message] = problem;
      issues.push({ code, message, offset: ref.offset, line: ref.line, column: ref.column, path: ref.path });
    }
  }
  return issues;
}

function refProblem(
  ref: TemplateRef,
  location: Location,
  context: ContextDeclaration,
  inline: boolean,
): [IssueCode, string] | undefined {
  const shown =
    ref.form === 'untrusted'
      ? `{{untrusted ${ref.path}}}`
      : `{{${ref.path}${ref.form === 'optional' ? '?' : ''}}}`;
  if (ref.form === 'untrusted' && location !== 'prompt') {
    return [
      IssueCode.fence_outside_prompt,
      `${shown} is not allowed in ${location}: the untrusted fence belongs in prompt templates only; pass the agent {{event.file}} instead.`,
    ];
  }
  if (isCredential(ref.path) && location !== 'env') {
    return [
      IssueCode.credential_outside_env,
      `${shown} is not allowed in ${location}: a credential may appear only in env, where it never shows in argv or prompts; move it to the command's env.`,
    ];
  }
  const spec = context.match(ref.path);
  if (spec === undefined) {
    return [
      IssueCode.unknown_path,
      `Unknown path ${ref.path} in ${shown}: it is not in the context table; check the spelling against the documented paths.`,
    ];
  }
  if (spec.untrustedOnly === true && ref.form !== 'untrusted') {
    return [
      IssueCode.untrusted_only_path,
      `${shown} reads free text: ${ref.path} may appear only fenced, as {{untrusted ${ref.path}}} in a prompt with untrustedInline; or give the agent {{event.file}}.`,
    ];
  }
  const allowed = spec.locations ?? LOCATIONS;
  if (!allowed.includes(location)) {
    return [
      IssueCode.path_not_allowed,
      `${shown} is not allowed in ${location}: ${ref.path} is allowed in ${allowed.join(', ') || 'no location'} only.`,
    ];
  }
  if (ref.form === 'untrusted' && !inline) {
    return [
      IssueCode.fence_not_enabled,
      `${shown} needs untrustedInline: the fence is off by default; set untrustedInline = true on this prompt's owner (read the danger note in docs/templates.md first), or use {{event.file}}.`,
    ];
  }
  return undefined;
}

/** @internal */
export function defaultWarn(warning: { message: string }): void {
  console.warn(`[@harness/tmpl] WARN ${warning.message}`);
}
