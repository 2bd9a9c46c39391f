// One pack command from its schema-valid entry: its templates checked, its inputs and required list
// derived from the argv, and the pack's defaults (tier, timeout, output ceiling, label) applied.

import { labelWithCredentials } from '../credential-flow';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import type { Effects, InputSchema, Label, PackCommand, Tier } from '../types';
import { parseDuration } from '../units';
import { checkCommandTemplates } from './templates';
import type { CheckContext, Path, RawPack } from './types';

/** What a command inherits from its pack. */
export interface PackDefaults {
  readonly tier: Tier;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly label: Label | undefined;
  /** The credentials the pack's env hands every command's process. */
  readonly credentials: readonly string[];
  /** Manifest ids the host serves itself; a command colliding with one is an issue. */
  readonly reserved: ReadonlySet<string>;
}

/** Builds command `ci` of pack `rp`, pushing its issues; the command is returned even when it has some. */
export function buildCommand(
  rp: RawPack,
  ci: number,
  pPath: Path,
  defaults: PackDefaults,
  ctx: CheckContext,
  issues: PacksIssue[],
): Omit<PackCommand, 'sandbox'> {
  const rc = rp.commands[ci]!;
  const cPath: Path = [...pPath, 'commands', ci];
  const manifestId = `${rp.id}.${rc.id}`;
  if (defaults.reserved.has(manifestId)) {
    issues.push(
      ctx.issue(
        Code.duplicate_id,
        [...cPath, 'id'],
        `command "${manifestId}" collides with the host's built-in command "${manifestId}"; rename the pack or the command`,
        { kind: 'command', id: manifestId, builtIn: true },
      ),
    );
  }
  const refs = checkCommandTemplates(rc, cPath, ctx, issues);
  const used = new Set(refs.map((r) => r.path));
  const inputs: Record<string, InputSchema> = {};
  const leadingDash: string[] = [];
  if (rc.inputs) {
    // allow_leading_dash and code are the pack's decisions, not part of the schema the model sees.
    for (const [name, { allow_leading_dash, code: _code, ...schema }] of Object.entries(rc.inputs)) {
      inputs[name] = { ...schema, type: schema.type ?? 'string' } as InputSchema;
      if (allow_leading_dash === true) leadingDash.push(name);
    }
  } else {
    for (const name of used) inputs[name] = { type: 'string' };
  }
  const required = [...new Set(refs.filter((r) => r.form === 'required').map((r) => r.path))];
  const effects: Effects = rc.effects ?? 'write';
  const overrideTimeout = rp.timeout_overrides?.[rc.id];
  // What it prints may be a credential in another form: its output carries each one's atom.
  const label = labelWithCredentials(
    (rc.label as Label | undefined) ?? defaults.label,
    defaults.credentials,
    rc.credential_output_unlabeled,
  );
  const description = rc.description?.trim() ?? '';
  return Object.freeze({
    id: rc.id,
    manifestId,
    pack: rp.id,
    title: rc.title ?? (description.split('\n')[0] || manifestId),
    description,
    argv: Object.freeze([...rc.argv]),
    inputs: Object.freeze(inputs),
    leadingDash: Object.freeze(leadingDash),
    required: Object.freeze(required),
    effects,
    effectsDeclared: rc.effects !== undefined,
    output: rc.output?.parse ?? 'text',
    okExitCodes: Object.freeze([...new Set(rc.ok_exit_codes ?? [0])]),
    tier: rp.permission_overrides?.[rc.id] ?? defaults.tier,
    timeoutMs: overrideTimeout === undefined ? defaults.timeoutMs : parseDuration(overrideTimeout)!,
    maxOutputBytes: defaults.maxOutputBytes,
    scopes: Object.freeze([...new Set([...(rp.scopes ?? []), ...(rc.scopes ?? [])])]),
    ...(label ? { label } : {}),
  });
}
