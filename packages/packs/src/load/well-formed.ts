// The template checks run over a file the schema rejected, so `packs check` reports every load error
// in one pass: only on the entries well-formed enough to check.
import type { PacksIssue } from '../errors';
import { NAME_PATTERN } from '../schema';
import { checkCommandTemplates, checkPackEnv } from './templates';
import type { CheckContext, Path } from './types';

function isMapObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((a) => typeof a === 'string');
}

function isStringMap(value: unknown): value is Readonly<Record<string, string>> {
  return isMapObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** A `credentials_ref` as the list of names it declares, or `undefined` when the value is malformed. */
function wellFormedCredentials(ref: unknown): readonly string[] | undefined {
  const names: unknown[] = ref === undefined ? [] : [ref].flat();
  return names.every((n): n is string => typeof n === 'string' && NAME_PATTERN.test(n)) ? names : undefined;
}

/**
 * Runs the template checks over a file the schema rejected, on every entry well-formed enough to
 * check. {@link checkPackEnv} runs on a pack (any map) whose `env` is a map of strings and whose
 * `credentials_ref` is absent or well-formed; {@link checkCommandTemplates} on a command entry (a
 * map) whose `argv` is a list of strings and whose `inputs` is absent or a map, whatever its `id`.
 * Anything else in the file (pack ids, overrides, agents) is left to the schema issues already
 * reported.
 */
export function checkWellFormedEntries(data: unknown, ctx: CheckContext): PacksIssue[] {
  const issues: PacksIssue[] = [];
  if (!isMapObject(data) || !Array.isArray(data.command_packs)) return issues;
  data.command_packs.forEach((rp: unknown, pi) => {
    if (!isMapObject(rp)) return;
    const pPath: Path = ['command_packs', pi];
    const credentials = wellFormedCredentials(rp.credentials_ref);
    if (credentials !== undefined && isStringMap(rp.env)) {
      // A pack without a string id is still named by the path at the start of each message.
      checkPackEnv(rp.env, credentials, typeof rp.id === 'string' ? rp.id : undefined, pPath, ctx, issues);
    }
    if (!Array.isArray(rp.commands)) return;
    rp.commands.forEach((rc: unknown, ci) => {
      if (!isMapObject(rc)) return;
      // The command's id plays no part in its template checks: a bad id hides none of them.
      const { argv, inputs, variants } = rc;
      if (inputs !== undefined && !isMapObject(inputs)) return;
      const cPath: Path = [...pPath, 'commands', ci];
      if (isStringList(argv)) checkCommandTemplates({ argv, inputs }, cPath, ctx, issues);
      if (!Array.isArray(variants)) return;
      variants.forEach((v: unknown, vi) => {
        if (isMapObject(v) && isStringList(v.argv)) {
          checkCommandTemplates({ argv: v.argv, inputs }, [...cPath, 'variants', vi], ctx, issues);
        }
      });
    });
  });
  return issues;
}
