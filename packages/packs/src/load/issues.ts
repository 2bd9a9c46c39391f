// How the loader words and orders its issues: zod's schema issues rewritten as "where: expected …,
// found …", issues inside a template string, and the file order every result is sorted in.
import type { z } from 'zod';
import type { PacksErrorCode, PacksIssue } from '../errors';
import { exampleFor } from './examples';
import type { CheckContext, Path } from './types';

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  return `${typeof value} ${String(value)}`;
}

function get(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}

/** A path as it reads in a message: `command_packs[0].commands[1].argv[2]`, or `(root)`. */
export function showPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path)
    out += typeof seg === 'number' ? `[${seg}]` : out === '' ? String(seg) : `.${String(seg)}`;
  return out || '(root)';
}

// zod's own type names, as a message to a person reads them.
const TYPE_WORDS: Readonly<Record<string, string>> = {
  object: 'a map',
  record: 'a map',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
};

/**
 * One zod issue as a message naming where, what was expected and what was found, and then an example
 * line of the right shape (unless the message already gives one).
 */
export function zodMessage(
  issue: z.core.$ZodIssue,
  data: unknown,
): { path: PropertyKey[]; key: boolean; message: string } {
  const m = zodMessageOnly(issue, data);
  if (m.message.includes('e.g.')) return m;
  // An unknown key's example is its map's: the path ends at the key.
  const example = exampleFor(m.key ? m.path.slice(0, -1) : m.path);
  return example === undefined ? m : { ...m, message: `${m.message}; e.g. ${example}` };
}

function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.message.startsWith('expected')) return issue.message;
  const type = issue.code === 'invalid_type' ? issue.expected : undefined;
  return `expected ${(type && TYPE_WORDS[type]) ?? type ?? issue.message}`;
}

function zodMessageOnly(
  issue: z.core.$ZodIssue,
  data: unknown,
): { path: PropertyKey[]; key: boolean; message: string } {
  const path = [...issue.path];
  const found = get(data, path);
  const where = showPath(path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? '';
      return { path: [...path, key], key: true, message: `${where}: ${issue.message}` };
    }
    case 'invalid_type':
      if (found === undefined) {
        return {
          path,
          key: false,
          message: `${where}: missing; ${expectedOf(issue)}`,
        };
      }
      return {
        path,
        key: false,
        message: `${where}: ${expectedOf(issue)}, found ${describe(found)}`,
      };
    case 'invalid_key':
      return {
        path,
        key: true,
        message: `${where}: ${issue.issues[0]?.message ?? issue.message}, found ${describe(path.at(-1))}`,
      };
    case 'too_small':
      return { path, key: false, message: `${where}: ${issue.message}, found ${describe(found)}` };
    default:
      if (issue.message.includes('unknown key'))
        return { path, key: true, message: `${where}: ${issue.message}` };
      return {
        path,
        key: false,
        message: `${where}: ${issue.message.startsWith('expected') ? issue.message : `expected ${issue.message}`}, found ${describe(found)}`,
      };
  }
}

/**
 * An issue positioned inside the string at `at` (a template's placeholder or syntax error), its
 * message prefixed with where that string sits in the file.
 */
export function issueInside(
  ctx: CheckContext,
  code: PacksErrorCode,
  at: Path,
  offset: number,
  message: string,
): PacksIssue {
  const { line, column } = ctx.loc.inside(at, offset);
  return { code, message: `${showPath(at)}: ${message}`, path: at, file: ctx.file, line, column };
}

/** Sorts issues into file order (line, then column), in place. */
export function sortIssues(issues: PacksIssue[]): PacksIssue[] {
  return issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}
