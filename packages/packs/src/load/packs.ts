// The packs of a schema-valid workspace file: unique and unreserved ids, overrides that name a
// command, env templates and credentials, then each command (./commands). Issues are pushed; the
// packs are returned for the requirement probes, which run only when no issue was found.
import { isAbsolute, resolve } from 'node:path';
import { parseByteSize, parseDuration } from '@harness/config';
import { showPath } from '@harness/errors';
import { credentialsReceived } from '../credential-flow';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import { listForMessage } from '../lookup';
import { approvalWaitMs } from '../schema';
import type { Label, Pack, UnlistedCommand } from '../types';
import { DEFAULT_APPROVAL_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from '../units';
import { buildCommand, type CommandForm, type PackDefaults } from './commands';
import { checkDisplays } from './display';
import { type LoadWalls, resolveSandbox } from './sandbox';
import { checkPackEnv } from './templates';
import type { BuildContext, CheckContext, Path, RawPack } from './types';

/** Pack ids no workspace may declare: `workspace` (reserved) and `loom` (the host's built-ins). */
export const RESERVED_PACK_IDS: readonly string[] = ['workspace', 'loom'];

/** A built pack and its index in `command_packs` (probe issues point there). */
export interface BuiltPack {
  readonly pack: Pack;
  readonly index: number;
  /** Command id → its variants, for each command that has some (the probes choose one). */
  readonly variants: ReadonlyMap<string, readonly CommandForm[]>;
}

/** What building the packs needs besides: the sandbox walls every command of this load shares. */
export type PackBuildContext = BuildContext & { readonly walls: LoadWalls };

/** Builds every pack of the file whose id is not a duplicate, pushing every issue found. */
export function buildPacks(
  rawPacks: readonly RawPack[],
  dir: string,
  ctx: PackBuildContext,
  issues: PacksIssue[],
  warnings: PacksIssue[],
): BuiltPack[] {
  const { file, issue } = ctx;
  const seenPacks = new Map<string, number>();
  const reserved = new Set(ctx.options.reservedCommandIds ?? []);
  const built: BuiltPack[] = [];
  rawPacks.forEach((rp, pi) => {
    const pPath: Path = ['command_packs', pi];
    if (RESERVED_PACK_IDS.includes(rp.id)) {
      issues.push(
        issue(
          Code.reserved_id,
          [...pPath, 'id'],
          `pack id "${rp.id}" is reserved (${RESERVED_PACK_IDS.join(', ')}); expected another id, e.g. "${rp.id}-tools"`,
          { pack: rp.id, reserved: RESERVED_PACK_IDS },
        ),
      );
    }
    const earlier = seenPacks.get(rp.id);
    if (earlier !== undefined) {
      const first = ctx.loc.at(['command_packs', earlier, 'id']);
      issues.push(
        issue(
          Code.duplicate_id,
          [...pPath, 'id'],
          `pack id "${rp.id}" is declared twice: here and at ${file}:${first.line}:${first.column}; expected unique pack ids`,
          { kind: 'pack', id: rp.id, first },
        ),
      );
      return;
    }
    seenPacks.set(rp.id, pi);
    const pack = buildPack(rp, pPath, dir, reserved, ctx.origins?.get(pi), ctx, issues);
    warnings.push(...unlistedWarnings(pack.pack, pPath, ctx));
    built.push({ index: pi, ...pack });
  });
  return built;
}

function buildPack(
  rp: RawPack,
  pPath: Path,
  dir: string,
  reserved: ReadonlySet<string>,
  standard: string | undefined,
  ctx: PackBuildContext,
  issues: PacksIssue[],
): { pack: Pack; variants: Map<string, readonly CommandForm[]> } {
  checkCommandIds(rp, pPath, ctx, issues);
  checkOverrides(rp, pPath, ctx, issues);
  const credentials = rp.credentials_ref === undefined ? [] : [rp.credentials_ref].flat();
  checkPackEnv(rp.env ?? {}, credentials, rp.id, pPath, ctx, issues);
  checkCredentialSource(rp, credentials, pPath, ctx, issues);
  const cwd = rp.cwd === undefined ? dir : isAbsolute(rp.cwd) ? rp.cwd : resolve(dir, rp.cwd);
  const defaults: PackDefaults = {
    cwd,
    ...(ctx.openListedValues === true ? { openListedValues: true } : {}),
    tier: rp.permission ?? 'cautious',
    timeoutMs: rp.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseDuration(rp.timeout)!,
    maxOutputBytes: rp.max_output === undefined ? DEFAULT_MAX_OUTPUT_BYTES : parseByteSize(rp.max_output)!,
    approvalWaitMs:
      rp.approval_wait === undefined ? (ctx.approvalWaitMs ?? 0) : approvalWaitMs(rp.approval_wait),
    approvalTimeoutMs:
      rp.approval_timeout === undefined
        ? (ctx.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS)
        : parseDuration(rp.approval_timeout)!,
    telemetryArgs: rp.telemetry?.include_args === true,
    label: rp.label as Label | undefined,
    credentials: credentialsReceived(rp.env ?? {}),
    reserved,
  };
  const variants = new Map<string, readonly CommandForm[]>();
  const unlisted: UnlistedCommand[] = [];
  const commands = rp.commands.flatMap((_, ci) => {
    const built = buildCommand(rp, ci, pPath, defaults, ctx, issues);
    const sandbox = resolveSandbox(rp, ci, built.command.effects, cwd, pPath, ctx, issues);
    // A command missing a list the workspace gives is not offered; the rest of its pack is.
    const missing = built.unlisted[0];
    if (missing !== undefined) {
      unlisted.push({ command: built.command.manifestId, input: missing });
      return [];
    }
    if (built.variants) variants.set(built.command.id, built.variants);
    return [Object.freeze({ ...built.command, sandbox })];
  });
  checkDisplays(commands, pPath, ctx, issues);
  const pack: Pack = Object.freeze({
    id: rp.id,
    ...(standard === undefined ? {} : { standard }),
    description: rp.description ?? '',
    permission: defaults.tier,
    cwd,
    env: Object.freeze({ ...(rp.env ?? {}) }),
    credentials: Object.freeze(credentials),
    requires: Object.freeze(
      (rp.requires ?? []).map((r) =>
        r.version === undefined ? { binary: r.binary } : { binary: r.binary, version: r.version },
      ),
    ),
    optional: rp.optional === true,
    ...(defaults.label ? { label: defaults.label } : {}),
    commands: Object.freeze(commands),
    ...(unlisted.length > 0 ? { unlisted: Object.freeze(unlisted) } : {}),
  });
  return { pack, variants };
}

/** One warning per command of `pack` not offered for want of a list, at the pack's entry. */
function unlistedWarnings(pack: Pack, pPath: Path, ctx: CheckContext): PacksIssue[] {
  return (pack.unlisted ?? []).map(({ command, input }) => {
    const id = command.slice(pack.id.length + 1);
    const expected = `input_overrides: { ${id}: { ${input}: { enum: [...] } } }`;
    return ctx.issue(
      Code.unlisted_input,
      pPath,
      `${showPath(pPath)}: ${command} is not offered: it takes input "${input}" from a list this workspace gives, and it gives none; to offer it, add ${expected}`,
      { command, input, expected },
    );
  });
}

function checkCommandIds(rp: RawPack, pPath: Path, ctx: CheckContext, issues: PacksIssue[]): void {
  const seenCommands = new Map<string, number>();
  rp.commands.forEach((c, ci) => {
    const e = seenCommands.get(c.id);
    if (e !== undefined) {
      const first = ctx.loc.at([...pPath, 'commands', e, 'id']);
      issues.push(
        ctx.issue(
          Code.duplicate_id,
          [...pPath, 'commands', ci, 'id'],
          `command "${rp.id}.${c.id}" is declared twice: here and at ${ctx.file}:${first.line}:${first.column}; expected unique command ids in a pack`,
          { kind: 'command', id: `${rp.id}.${c.id}`, first },
        ),
      );
    } else seenCommands.set(c.id, ci);
  });
}

function checkOverrides(rp: RawPack, pPath: Path, ctx: CheckContext, issues: PacksIssue[]): void {
  const commandIds = rp.commands.map((c) => c.id);
  for (const key of ['permission_overrides', 'timeout_overrides', 'input_overrides'] as const) {
    for (const name of Object.keys(rp[key] ?? {})) {
      if (!commandIds.includes(name)) {
        issues.push(
          ctx.issue(
            Code.unknown_override,
            [...pPath, key, name],
            `${key} key "${name}" names no command of pack "${rp.id}"; expected one of ${listForMessage(commandIds)}`,
            { pack: rp.id, key, command: name, expected: commandIds },
            true,
          ),
        );
      }
    }
  }
  (rp.unattended_when_confined ?? []).forEach((name, i) => {
    if (commandIds.includes(name)) return;
    issues.push(
      ctx.issue(
        Code.unknown_override,
        [...pPath, 'unattended_when_confined', i],
        `unattended_when_confined entry "${name}" names no command of pack "${rp.id}"; expected one of ${listForMessage(commandIds)}`,
        { pack: rp.id, key: 'unattended_when_confined', command: name, expected: commandIds },
        true,
      ),
    );
  });
}

/** Where the caller gave its credential source, every credential a pack names must be in it. */
function checkCredentialSource(
  rp: RawPack,
  credentials: readonly string[],
  pPath: Path,
  ctx: BuildContext,
  issues: PacksIssue[],
): void {
  const source = ctx.options.credentials;
  if (!source) return;
  for (const cred of credentials) {
    const v = source.get(cred);
    if (typeof v !== 'string' || v === '') {
      issues.push(
        ctx.issue(
          Code.unknown_credential,
          [...pPath, 'credentials_ref'],
          `credential "${cred}" of pack "${rp.id}" is not in the configured credential source (or is empty); add it to the host's credentials`,
          { credential: cred, pack: rp.id, reason: 'not_in_source', expected: credentials },
        ),
      );
    }
  }
}
