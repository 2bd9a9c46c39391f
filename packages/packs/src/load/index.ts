// The pack loader's entry: a file of command packs read (./source), checked against the pack
// schema, built (./build) and probed. A workspace file is loaded the same way by
// `@harness/workspace`, with its settings and agents beside the packs.
import { dirname, resolve } from 'node:path';
import type { PacksIssue } from '../errors';
import { packsFileSchema } from '../schema';
import { STANDARD_PACKS } from '../standard/library';
import type { PackSet } from '../types';
import { buildPackList, offerPacks } from './build';
import { PACK_EXAMPLES } from './examples';
import { sortIssues } from './issues';
import { checkSource, readSource } from './source';
import type { BuildContext, FileSource, LoadOptions, PacksLoadResult } from './types';

export { RESERVED_PACK_IDS } from './packs';
export type { FileSource, LoadOptions, PacksLoadResult } from './types';

/**
 * Loads a file of command packs (YAML, or JSON, which YAML reads too) whose `command_packs` lists
 * them, as a workspace file does, without a workspace's settings and agents: parses it with
 * positions, checks it against the pack schema, resolves every default, checks every argv and env
 * template and every example, probes requirements, and confines each command as `sandbox_mode:
 * preferred` does. Never throws for a bad file: every problem is an issue naming file, line and
 * column, what was expected and what was found.
 *
 * A pack whose requirement fails is a load error naming the binary, unless the pack says
 * `optional: true`: then it is left out (its commands are not offered) with a warning. A `-
 * standard: <name>` entry is the standard pack of that name bundled with this release (or
 * `options.standardPacks`), with the entry's keys over it (docs/standard-packs.md).
 */
export async function loadPacks(source: FileSource, options: LoadOptions = {}): Promise<PacksLoadResult> {
  return loadWith(source, options, {});
}

/** What this package's own callers may ask of a load beyond {@link LoadOptions}. */
export interface InternalLoadOptions {
  /**
   * Let an `enum_from_workspace` input stay open when the file lists no values (describing a
   * standard pack outside any workspace); a real load always requires the list.
   */
  readonly openListedValues?: boolean;
  /**
   * Confine every command as its pack declares, whatever this machine can do (describing packs:
   * nothing runs), instead of applying `sandbox_mode: preferred` against this machine.
   */
  readonly asDeclared?: boolean;
}

/** {@link loadPacks}, with this package's internal options. */
export async function loadWith(
  source: FileSource,
  options: LoadOptions,
  internal: InternalLoadOptions,
): Promise<PacksLoadResult> {
  const read = await readSource(source, options.standardPacks ?? STANDARD_PACKS);
  if (!read.ok) return read;
  const checked = checkSource(packsFileSchema, read.parsed, PACK_EXAMPLES);
  if (!checked.ok) return checked;
  const ctx: BuildContext = { ...read.parsed, options, ...internal };
  const issues: PacksIssue[] = [];
  const warnings: PacksIssue[] = [];
  const dir = dirname(resolve(ctx.file));
  const built = buildPackList(checked.data.command_packs ?? [], dir, ctx, issues, warnings);
  if (issues.length > 0) return { ok: false, issues: sortIssues(issues) };
  const offered = await offerPacks(built, 'preferred', ctx, issues, warnings);
  if (issues.length > 0) return { ok: false, issues: sortIssues(issues) };
  const sorted = sortIssues(warnings);
  const packs: PackSet = Object.freeze({
    file: ctx.file,
    dir,
    packs: Object.freeze(offered.packs),
    unavailable: Object.freeze(offered.unavailable),
    warnings: Object.freeze(sorted),
    sandbox: Object.freeze(offered.sandbox),
  });
  return { ok: true, packs, warnings: sorted };
}
