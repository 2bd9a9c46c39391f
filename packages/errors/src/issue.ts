// The shape of a problem a loader reports as data, and the words every loader uses for it.
import type { DetailsByCode } from './error';

/** Where inside a document an issue sits: `['command_packs', 0, 'argv', 2]`. */
export type IssuePath = readonly (string | number)[];

/**
 * One problem found in a file or a value, returned as data (never thrown). `file`, `line` and
 * `column` (1-based) are present for problems found in a file; `path` is the location inside the
 * document. A package narrows `code` to its table and adds `details` per code (see {@link IssueOf}).
 */
export interface Issue<Code extends string = string> {
  readonly code: Code;
  /** One line: what failed, what was expected, what was found, how to fix it. Never holds a secret. */
  readonly message: string;
  readonly path: IssuePath;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
}

/**
 * A package's issue union: one member per code, each with the `details` its code declares in `D`
 * (required there), so `if (issue.code === 'x') issue.details` is typed.
 */
export type IssueOf<Code extends string, D extends DetailsByCode<Code> = Record<never, never>> = {
  [C in Code]: Issue<C> & (C extends keyof D ? { readonly details: D[C] } : { readonly details?: undefined });
}[Code];

/** `file:line:column: message`, `file: message`, or just the message when the issue has no file. */
export function formatIssue(issue: Issue): string {
  if (issue.file === undefined) return issue.message;
  if (issue.line === undefined) return `${issue.file}: ${issue.message}`;
  return `${issue.file}:${issue.line}:${issue.column ?? 1}: ${issue.message}`;
}

/** A path as it reads in a message: `command_packs[0].commands[1].argv[2]`, or `(root)`. */
export function showPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path)
    out += typeof seg === 'number' ? `[${seg}]` : out === '' ? String(seg) : `.${String(seg)}`;
  return out || '(root)';
}

/** What was found, as a message says it: `nothing`, `null`, `a list of 3`, `a map`, `"text"`, `number 4`. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return `${typeof value} ${String(value)}`;
}

/** The value at `path` inside `root`, or `undefined` where the path leaves the document. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}
