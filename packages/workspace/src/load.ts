// The workspace loader's entry: read the file, parse the YAML with positions, check it against the
// schema, then build it (./build). A file the schema rejects still gets the template checks of its
// well-formed entries (./well-formed), so one pass reports every load error.
import { readFile } from 'node:fs/promises';
import { parseYamlConfig } from '@harness/config/yaml';
import { PacksErrorCode as Code, type PacksIssue, packsIssue } from '../errors';
import { workspaceSchema } from '../schema';
import { STANDARD_PACKS } from '../standard/library';
import { build } from './build';
import { sortIssues, zodMessage } from './issues';
import { expandStandardPacks } from './standard';
import type { LoadOptions, LoadResult, Path, PositionedIssue, WorkspaceSource } from './types';
import { checkWellFormedEntries } from './well-formed';

export { RESERVED_PACK_IDS } from './packs';
export type { LoadOptions, LoadResult, WorkspaceSource } from './types';

/**
 * Loads a workspace file (YAML, or JSON, which YAML reads too): parses it with positions, checks it
 * against the schema, resolves every default, checks every argv and env template, probes
 * requirements, and resolves every agent's grants. Never throws for a bad file: every problem is an
 * issue naming file, line and column, what was expected and what was found.
 *
 * A file the schema rejects reports its schema issues together with the argv and input checks of
 * every command whose own entry is well-formed (`argv` a list of strings, `inputs`
 * absent or a map) and the env checks of every pack whose `env` is a map of strings and whose
 * `credentials_ref` is absent or well-formed; the other checks, requirement probes and grants need
 * a schema-valid file.
 *
 * A pack whose requirement fails is a load error naming the binary, unless the pack says
 * `optional: true`: then it is left out (its commands are not in the workspace) with a warning.
 *
 * A `- standard: <name>` entry is the standard pack of that name bundled with this release (or
 * `options.standardPacks`), with the entry's keys over it (docs/standard-packs.md); a name that is not
 * bundled is an `unknown_standard` issue listing the names that are.
 */
export async function loadWorkspace(source: WorkspaceSource, options: LoadOptions = {}): Promise<LoadResult> {
  return loadWith(source, options, {});
}

/** What this package's own callers may ask of a load beyond {@link LoadOptions}. */
export interface InternalLoadOptions {
  /**
   * Let an `enum_from_workspace` input stay open when the workspace lists no values (describing a
   * standard pack outside any workspace); a real load always requires the list.
   */
  readonly openListedValues?: boolean;
}

/** {@link loadWorkspace}, with this package's internal options. */
export async function loadWith(
  source: WorkspaceSource,
  options: LoadOptions,
  internal: InternalLoadOptions,
): Promise<LoadResult> {
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
  // `- standard: <name>` entries become their bundled packs before anything else reads the file;
  // the merged entries keep their indexes, so positions still point into this file.
  const expanded = expandStandardPacks(yaml.data, options.standardPacks ?? STANDARD_PACKS, issue);
  if (expanded.issues.length > 0) return { ok: false, issues: sortIssues(expanded.issues) };
  const { data, origins } = expanded;
  const parsed = workspaceSchema.safeParse(data);
  if (!parsed.success) {
    // One issue per location: the first check that fails says what was expected.
    const seen = new Set<string>();
    const issues: PacksIssue[] = [];
    for (const i of parsed.error.issues) {
      const m = zodMessage(i, data);
      const where = JSON.stringify(m.path);
      if (seen.has(where)) continue;
      seen.add(where);
      issues.push(
        issue(Code.schema, m.path as Path, m.message, { expected: m.expected, found: m.found }, m.key),
      );
    }
    // The argv, input and env checks need only their own entries, so they run here too: `packs
    // check` then reports every load error in one pass rather than template errors after a fix.
    // Where a schema issue and a template issue share a position, the schema issue says it.
    const taken = new Set(issues.map((i) => `${i.line}:${i.column}`));
    for (const t of checkWellFormedEntries(data, { file, loc, issue })) {
      if (!taken.has(`${t.line}:${t.column}`)) issues.push(t);
    }
    return { ok: false, issues: sortIssues(issues) };
  }
  return build(parsed.data, { file, loc, issue, options, origins, ...internal });
}
