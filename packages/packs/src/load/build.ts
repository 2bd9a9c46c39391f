// A schema-valid `command_packs` list to packs, in two passes: every pack built, with its argv
// safety and credential flow warnings (every issue of the file at once); then, for a file otherwise
// sound, the requirement probes (a probe spawns processes) and the sandbox mode against what this
// machine can do.
import type { PacksIssue } from '../errors';
import type { Pack, SandboxStatus, UnavailablePack } from '../types';
import { argvSafety, credentialFlow } from './argv-safety';
import { applyGitIdentity } from './git-identity';
import { type BuiltPack, buildPacks } from './packs';
import { probeRequirements } from './probes';
import { applySandboxMode, loadWalls } from './sandbox';
import type { BuildContext, RawPack } from './types';
import { applyUnattended } from './unattended';

/**
 * Builds every pack of `rawPacks` (the file's `command_packs`, cwd relative to `dir`), pushing every
 * issue found and every argv safety and credential flow warning. The packs are returned for
 * {@link offerPacks}, to be called only when no issue was found.
 */
export function buildPackList(
  rawPacks: readonly RawPack[],
  dir: string,
  ctx: BuildContext,
  issues: PacksIssue[],
  warnings: PacksIssue[],
): BuiltPack[] {
  const built = buildPacks(rawPacks, dir, { ...ctx, walls: loadWalls(ctx.options) }, issues, warnings);
  argvSafety(rawPacks, ctx, warnings);
  credentialFlow(rawPacks, ctx, warnings);
  return built;
}

/** The packs of a load sorted by what this machine can run, and how their commands are confined. */
export interface OfferedPacks {
  readonly packs: Pack[];
  /** Optional packs left out: a requirement failed, or `sandbox_mode: required` found no mechanism. */
  readonly unavailable: UnavailablePack[];
  /** Packs whose requirement failed and that are not optional (each already a load error). */
  readonly failed: UnavailablePack[];
  readonly sandbox: SandboxStatus;
}

/**
 * Probes every built pack's requirements (unless `options.probe` is `false`), gives the standard git
 * packs that passed the person's identity (`options.gitIdentity`), then applies the sandbox `mode`
 * to them and keeps `unattended` only where a command runs confined: what a load offers here.
 */
export async function offerPacks(
  built: readonly BuiltPack[],
  mode: SandboxStatus['mode'],
  ctx: BuildContext,
  issues: PacksIssue[],
  warnings: PacksIssue[],
): Promise<OfferedPacks> {
  const probed = await probeRequirements(built, ctx, issues, warnings);
  const indexOf = (id: string) => built.find((b) => b.pack.id === id)?.index ?? 0;
  const scope = { ...probed, packs: await applyGitIdentity(probed.packs, indexOf, ctx, warnings) };
  const sandbox = ctx.asDeclared
    ? { mode, mechanism: null }
    : applySandboxMode(mode, scope, indexOf, ctx, warnings);
  // Last: whether a listed write runs unattended depends on how this machine confines it.
  return { ...scope, packs: applyUnattended(scope.packs, indexOf, ctx, warnings), sandbox };
}
