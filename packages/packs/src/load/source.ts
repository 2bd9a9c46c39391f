// Reading a file that declares command packs: its text (read, or given), the YAML parsed with
// positions, each `- standard: <name>` entry merged into its bundled pack, then the data checked
// against the file's zod schema. Every problem is an issue naming file, line and column; a file the
// schema rejects still gets the template checks of its well-formed entries (./well-formed), so one
// pass reports every load error. A workspace file (`@harness/workspace`) is read the same way.
import { readFile } from 'node:fs/promises';
import { parseYamlConfig } from '@harness/config/yaml';
import type { z } from 'zod';
import { PacksErrorCode as Code, type PacksIssue, packsIssue } from '../errors';
import { sortIssues, zodMessage } from './issues';
import { expandStandardPacks } from './standard';
import type { CheckContext, FileSource, Path, PositionedIssue } from './types';
import { checkWellFormedEntries } from './well-formed';

/** A file read and parsed: its data with each standard entry merged, and how to position an issue in it. */
export interface ParsedSource extends CheckContext {
  readonly data: unknown;
  /** Index in `command_packs` → the standard pack that entry was declared from. */
  readonly origins: ReadonlyMap<number, string>;
}

/** What a step of reading returns: its value, or every issue found (sorted into file order). */
export type Read<T> = ({ readonly ok: true } & T) | { readonly ok: false; readonly issues: PacksIssue[] };

/**
 * Reads `source` and parses its YAML (or JSON) with positions, then replaces each `- standard:
 * <name>` entry of `command_packs` with the pack of that name in `library` (name → YAML text) with
 * the entry's keys over it. The merged entries keep their indexes, so positions still point into
 * the file. Never throws for a bad file.
 */
export async function readSource(
  source: FileSource,
  library: Readonly<Record<string, string>>,
): Promise<Read<{ readonly parsed: ParsedSource }>> {
  const file = source.file;
  let text: string;
  if ('text' in source) text = source.text;
  else {
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? 'read error';
      return {
        ok: false,
        issues: [
          packsIssue(
            Code.file_unreadable,
            `cannot read the workspace file (${why})`,
            [],
            { reason: why },
            { file },
          ),
        ],
      };
    }
  }
  const yaml = parseYamlConfig(text);
  if (!yaml.ok) {
    return {
      ok: false,
      issues: yaml.errors.map(({ line, column, message }) =>
        packsIssue(Code.yaml_syntax, message, [], undefined, { file, line, column }),
      ),
    };
  }
  const { loc } = yaml;
  const issue: PositionedIssue = (code, path, message, details, key = false) => {
    const { line, column } = loc.at(path, { key });
    return packsIssue(code, message, path, details, { file, line, column });
  };
  // `- standard: <name>` entries become their bundled packs before anything else reads the file.
  const expanded = expandStandardPacks(yaml.data, library, issue);
  if (expanded.issues.length > 0) return { ok: false, issues: sortIssues(expanded.issues) };
  return { ok: true, parsed: { file, loc, issue, data: expanded.data, origins: expanded.origins } };
}

/**
 * Checks a parsed file against `schema`. A file it rejects reports one issue per location (the
 * first check that fails says what was expected, with an example line from `examples`: field path
 * → line), together with the argv and input checks of every command whose own entry is well-formed
 * (`argv` a list of strings, `inputs` absent or a map) and the env checks of every pack whose `env`
 * is a map of strings and whose `credentials_ref` is absent or well-formed.
 */
export function checkSource<S extends z.ZodType>(
  schema: S,
  parsed: ParsedSource,
  examples: Readonly<Record<string, string>>,
): Read<{ readonly data: z.output<S> }> {
  const { data } = parsed;
  const result = schema.safeParse(data);
  if (result.success) return { ok: true, data: result.data };
  const seen = new Set<string>();
  const issues: PacksIssue[] = [];
  for (const i of result.error.issues) {
    const m = zodMessage(i, data, examples);
    const where = JSON.stringify(m.path);
    if (seen.has(where)) continue;
    seen.add(where);
    issues.push(
      parsed.issue(Code.schema, m.path as Path, m.message, { expected: m.expected, found: m.found }, m.key),
    );
  }
  // The argv, input and env checks need only their own entries, so they run here too: `packs
  // check` then reports every load error in one pass rather than template errors after a fix.
  // Where a schema issue and a template issue share a position, the schema issue says it.
  const taken = new Set(issues.map((i) => `${i.line}:${i.column}`));
  for (const t of checkWellFormedEntries(data, parsed)) {
    if (!taken.has(`${t.line}:${t.column}`)) issues.push(t);
  }
  return { ok: false, issues: sortIssues(issues) };
}
