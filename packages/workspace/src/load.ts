// The workspace loader's entry: read the file (YAML with positions, `standard:` entries merged),
// check it against the workspace schema, then build it (./build). A file the schema rejects still
// gets the template checks of its well-formed entries, so one pass reports every load error.
import type { FileSource, LoadOptions } from '@harness/packs';
import { STANDARD_PACKS } from '@harness/packs';
import { checkSource, readSource } from '@harness/packs/loader';
import { build } from './build';
import { WORKSPACE_EXAMPLES } from './examples';
import { workspaceSchema } from './schema';
import type { LoadResult } from './types';

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
export async function loadWorkspace(source: FileSource, options: LoadOptions = {}): Promise<LoadResult> {
  const read = await readSource(source, options.standardPacks ?? STANDARD_PACKS);
  if (!read.ok) return read;
  const checked = checkSource(workspaceSchema, read.parsed, WORKSPACE_EXAMPLES);
  if (!checked.ok) return checked;
  return build(checked.data, { ...read.parsed, options });
}
