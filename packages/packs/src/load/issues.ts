// How the loader words and orders its issues: zod's schema issues rewritten as "where: expected …,
// found …", issues inside a template string, and the file order every result is sorted in.
import { type DetailsOf, describeFound, showPath, valueAt } from '@harness/errors';
import type { z } from 'zod';
import { type PacksErrorCode, type PacksIssue, type PacksIssueDetails, packsIssue } from '../errors';
import { exampleFor } from './examples';
import type { CheckContext, Path } from './types';

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

/** One zod issue in the loader's words: where, whether at a key, the message, and its `schema` details. */
export interface SchemaMessage {
  readonly path: PropertyKey[];
  readonly key: boolean;
  readonly message: string;
  /** What was expected, without the word "expected" (`a map`, `a duration such as 30s, 5m or 500ms`). */
  readonly expected: string;
  /** What was found, as {@link describeFound} says it (for an unknown key: the key). */
  readonly found: string;
}

/**
 * One zod issue as a message naming where, what was expected and what was found, and then an example
 * line of the right shape from `examples` (field path → line; see ./examples) unless the message
 * already gives one.
 */
export function zodMessage(
  issue: z.core.$ZodIssue,
  data: unknown,
  examples: Readonly<Record<string, string>>,
): SchemaMessage {
  const m = zodMessageOnly(issue, data);
  if (m.message.includes('e.g.')) return m;
  // An unknown key's example is its map's: the path ends at the key.
  const example = exampleFor(m.key ? m.path.slice(0, -1) : m.path, examples);
  return example === undefined ? m : { ...m, message: `${m.message}; e.g. ${example}` };
}

function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.message.startsWith('expected')) return issue.message;
  const type = issue.code === 'invalid_type' ? issue.expected : undefined;
  return `expected ${(type && TYPE_WORDS[type]) ?? type ?? issue.message}`;
}

/** What a message expects, as details hold it: `expected a map; …` → `a map`. */
function expectedWords(text: string): string {
  const words = text.startsWith('expected ') ? text.slice('expected '.length) : text;
  const cut = words.indexOf('; ');
  return cut < 0 ? words : words.slice(0, cut);
}

function zodMessageOnly(issue: z.core.$ZodIssue, data: unknown): SchemaMessage {
  const path = [...issue.path];
  const found = describeFound(valueAt(data, path));
  // `said` follows "where: "; `expected` is the text whose leading words say what was expected.
  const at = (said: string, expected: string, what = found, key = false, where = path): SchemaMessage => ({
    path: where,
    key,
    message: `${showPath(path)}: ${said}`,
    expected: expectedWords(expected),
    found: what,
  });
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? '';
      return at(issue.message, issue.message, describeFound(key), true, [...path, key]);
    }
    case 'invalid_type': {
      const expected = expectedOf(issue);
      if (found === 'nothing') return at(`missing; ${expected}`, expected);
      return at(`${expected}, found ${found}`, expected);
    }
    case 'invalid_key': {
      const expected = issue.issues[0]?.message ?? issue.message;
      const key = describeFound(path.at(-1));
      return at(`${expected}, found ${key}`, expected, key, true);
    }
    case 'too_small':
      return at(`${issue.message}, found ${found}`, issue.message);
    default: {
      if (issue.message.includes('unknown key'))
        return at(issue.message, issue.message, describeFound(path.at(-1)), true);
      const expected = issue.message.startsWith('expected') ? issue.message : `expected ${issue.message}`;
      return at(`${expected}, found ${found}`, expected);
    }
  }
}

/**
 * An issue positioned inside the string at `at` (a template's placeholder or syntax error), its
 * message prefixed with where that string sits in the file.
 */
export function issueInside<C extends PacksErrorCode>(
  ctx: CheckContext,
  code: C,
  at: Path,
  offset: number,
  message: string,
  details: DetailsOf<PacksIssueDetails, C>,
): PacksIssue {
  const { line, column } = ctx.loc.inside(at, offset);
  return packsIssue(code, `${showPath(at)}: ${message}`, at, details, { file: ctx.file, line, column });
}

/** Sorts issues into file order (line, then column), in place. */
export function sortIssues(issues: PacksIssue[]): PacksIssue[] {
  return issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}
