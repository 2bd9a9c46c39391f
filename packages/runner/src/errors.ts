import { CodedError, type CodeOf, defineCodes, formatIssue, type Issue } from '@harness/errors';

/**
 * Codes of {@link RunnerError} and of every issue this package reports. Callers branch on the code,
 * never on message text.
 */
export const RunnerErrorCode = defineCodes({
  /** The runner file (or a prompt file it names) could not be read. */
  file_unreadable: 'file_unreadable',
  /** The text is not valid YAML (or JSON). */
  yaml_syntax: 'yaml_syntax',
  /** A value does not have the shape the runner schema expects. */
  schema: 'schema',
  /** Two harnesses or two sources share an id. */
  duplicate_id: 'duplicate_id',
  /** A key is not allowed for the harness's kind (the validation matrix of docs/runner.md). */
  key_not_allowed: 'key_not_allowed',
  /** A key the harness's kind needs is missing. */
  key_required: 'key_required',
  /** A `generic` harness sets a prompt (REQ-1: generic never runs an agent). */
  generic_prompt: 'generic_prompt',
  /** An argv element or prompt template does not parse, or names a path its location does not allow. */
  template: 'template',
  /** A `trigger` names a source that is not declared. */
  unknown_source: 'unknown_source',
  /** A `schedule` is not a valid cron expression. */
  invalid_schedule: 'invalid_schedule',
  /** Every firing of the harness would skip with `template_unresolved` (TM-83). */
  always_skips: 'always_skips',
  /** A project file sets `untrusted_inline` (TM-126). */
  project_untrusted_inline: 'project_untrusted_inline',
  /** A required template value had no value at spawn: the run is skipped (triggered) or refused (plain start). */
  template_unresolved: 'template_unresolved',
  /** tmpl refused to render (a value starting with "-" at the start of an argv element, a NUL byte, …). */
  render_refused: 'render_refused',
  /** A warning: `untrusted_inline` is on for a harness (load) or a fenced value was rendered (run). */
  untrusted_inline: 'untrusted_inline',
  /** An unknown harness id. */
  unknown_harness: 'unknown_harness',
});

/** One of the {@link RunnerErrorCode} values. */
export type RunnerErrorCode = CodeOf<typeof RunnerErrorCode>;

/**
 * One problem found loading a runner file. `file`, `line` and `column` (1-based) are present for
 * problems found in a file; `path` is the location inside the document (`['harnesses', 0, 'argv', 2]`).
 */
export type RunnerIssue = Issue<RunnerErrorCode>;

/** Formats an issue as `file:line:column: message` (the shape editors and terminals link). */
export function formatRunnerIssue(issue: RunnerIssue): string {
  return formatIssue(issue);
}

/** The one error class of `@harness/runner`; expected failures are returned as data, this is thrown for misuse. */
export class RunnerError extends CodedError<RunnerErrorCode> {
  override readonly name = 'RunnerError';
}
