// The requirement probes: each pack's `requires` checked by running `<binary> --version` once per
// binary. A failing pack is an issue, or, when it says `optional: true`, left out with a warning.
import { FALLBACK_PATH } from '@harness/exec';
import { PacksErrorCode as Code, type PacksErrorCode, type PacksIssue } from '../errors';
import { listForMessage } from '../lookup';
import { type ProbeResult, probeBinary, satisfies } from '../probe';
import type { Pack, UnavailablePack } from '../types';
import type { BuiltPack } from './packs';
import type { BuildContext, Path } from './types';

// The PATH used when neither the caller nor this process has one is declared once, by @harness/exec.
export { FALLBACK_PATH };

interface Failure {
  readonly binary: string;
  readonly reason: string;
  readonly code: PacksErrorCode;
  readonly at: Path;
  /** The probe's detail when the binary is missing (`not found on PATH`, `not executable`). */
  readonly missing?: string;
}

/**
 * Probes every pack's requirements (unless `options.probe` is `false`) and sorts the packs into
 * offered, left out (optional) and failed (a load error each).
 */
export async function probeRequirements(
  built: readonly BuiltPack[],
  ctx: BuildContext,
  issues: PacksIssue[],
  warnings: PacksIssue[],
): Promise<{ packs: Pack[]; unavailable: UnavailablePack[]; failed: UnavailablePack[] }> {
  const { issue, options } = ctx;
  const packs: Pack[] = [];
  const unavailable: UnavailablePack[] = [];
  // Packs whose requirement fails and that are not optional: a load error, named again by any grant.
  const failed: UnavailablePack[] = [];
  const probes = new Map<string, Promise<ProbeResult>>();
  const probe = (binary: string): Promise<ProbeResult> => {
    let p = probes.get(binary);
    if (!p) {
      p = probeBinary(binary, options.path ?? process.env.PATH ?? FALLBACK_PATH);
      probes.set(binary, p);
    }
    return p;
  };
  for (const { pack, index } of built) {
    const failure = options.probe === false ? undefined : await firstFailure(pack, index, probe);
    if (!failure) {
      packs.push(pack);
      continue;
    }
    if (pack.optional) {
      unavailable.push({
        id: pack.id,
        binary: failure.binary,
        reason: failure.reason,
        commands: pack.commands.map((c) => c.manifestId),
      });
      warnings.push(
        issue(
          failure.code,
          failure.at,
          `optional pack "${pack.id}" left out: ${failure.reason}; its commands ${listForMessage(pack.commands.map((c) => c.manifestId))} are not offered`,
        ),
      );
    } else {
      const because =
        failure.missing === 'not found on PATH'
          ? `${failure.binary} is not on PATH`
          : `it requires ${failure.binary}: ${failure.reason}`;
      failed.push({
        id: pack.id,
        binary: failure.binary,
        reason: because,
        commands: pack.commands.map((c) => c.manifestId),
      });
      issues.push(
        issue(
          failure.code,
          failure.at,
          `pack "${pack.id}" is unavailable because ${because}; ${failure.code === Code.REQUIREMENT_MISSING ? `install ${failure.binary}` : 'install a version that satisfies the constraint'}, or mark the pack optional: true`,
        ),
      );
    }
  }
  return { packs, unavailable, failed };
}

/** The first requirement of `pack` that its probe does not satisfy, in declaration order. */
async function firstFailure(
  pack: Pack,
  index: number,
  probe: (binary: string) => Promise<ProbeResult>,
): Promise<Failure | undefined> {
  for (const [ri, req] of pack.requires.entries()) {
    const result = await probe(req.binary);
    const at: Path = ['command_packs', index, 'requires', ri];
    const fail = (code: PacksErrorCode, reason: string): Failure => ({
      binary: req.binary,
      reason,
      code,
      at,
    });
    if (result.kind === 'missing') {
      return {
        ...fail(Code.REQUIREMENT_MISSING, `${req.binary} is not installed (${result.detail})`),
        missing: result.detail,
      };
    }
    if (result.kind === 'failed') {
      return fail(Code.REQUIREMENT_VERSION, `${req.binary} could not be probed: ${result.detail}`);
    }
    if (req.version === undefined) continue;
    if (result.version === undefined) {
      return fail(
        Code.REQUIREMENT_VERSION,
        `${req.binary} --version printed no version number, so ${req.version} cannot be checked`,
      );
    }
    if (!satisfies(result.version, req.version)) {
      return fail(
        Code.REQUIREMENT_VERSION,
        `${req.binary} ${result.version} is installed but ${req.version} is required`,
      );
    }
  }
  return undefined;
}
