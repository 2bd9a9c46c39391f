// The requirement probes: each pack's `requires` checked by running `<binary> --version` once per
// binary. A failing pack is an issue, or, when it says `optional: true`, left out with a warning.
import { FALLBACK_PATH } from '@harness/exec/internal';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import { listForMessage } from '../lookup';
import { type ProbeResult, probeBinary, satisfies } from '../probe';
import type { Pack, Requirement, UnavailablePack } from '../types';
import type { CommandForm } from './commands';
import type { BuiltPack } from './packs';
import type { BuildContext, Path } from './types';

interface Failure {
  readonly binary: string;
  readonly reason: string;
  readonly code: typeof Code.requirement_missing | typeof Code.requirement_version;
  readonly at: Path;
  /** The probe's detail when the binary is missing (`not found on PATH`, `not executable`). */
  readonly missing?: string;
  /** The constraint required and the version found, where the probe got that far. */
  readonly expected?: string;
  readonly found?: string;
  /** For a command none of whose variants can run: why, in full (the load error's "because …"). */
  readonly because?: string;
}

/** The details of the issue a failed probe of `pack` becomes. */
function failureIssue(ctx: BuildContext, failure: Failure, pack: string, message: string): PacksIssue {
  const { binary, at } = failure;
  if (failure.code === Code.requirement_missing)
    return ctx.issue(Code.requirement_missing, at, message, { pack, binary });
  return ctx.issue(Code.requirement_version, at, message, {
    pack,
    binary,
    ...(failure.expected === undefined ? {} : { expected: failure.expected }),
    ...(failure.found === undefined ? {} : { found: failure.found }),
  });
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
  const { options } = ctx;
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
  for (const { pack: declared, index, variants } of built) {
    const probing = options.probe !== false;
    let failure = probing
      ? await firstFailure(declared.requires, (ri) => ['command_packs', index, 'requires', ri], probe)
      : undefined;
    let pack = declared;
    if (!failure && variants.size > 0) {
      const chosen = await chooseVariants(declared, variants, probing, probe);
      if ('failure' in chosen) failure = chosen.failure;
      else pack = chosen.pack;
    }
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
        failureIssue(
          ctx,
          failure,
          pack.id,
          `optional pack "${pack.id}" left out: ${failure.reason}; its commands ${listForMessage(pack.commands.map((c) => c.manifestId))} are not offered`,
        ),
      );
    } else {
      const because =
        failure.because ??
        (failure.missing === 'not found on PATH'
          ? `${failure.binary} is not on PATH`
          : `it requires ${failure.binary}: ${failure.reason}`);
      failed.push({
        id: pack.id,
        binary: failure.binary,
        reason: because,
        commands: pack.commands.map((c) => c.manifestId),
      });
      issues.push(
        failureIssue(
          ctx,
          failure,
          pack.id,
          `pack "${pack.id}" is unavailable because ${because}; ${failure.code === Code.requirement_missing ? `install ${failure.binary}` : 'install a version that satisfies the constraint'}, or mark the pack optional: true`,
        ),
      );
    }
  }
  return { packs, unavailable, failed };
}

/**
 * Each command with variants gets the first variant whose requirements hold (without probing: the
 * first); a command none of whose variants can run fails its pack, naming every alternative.
 */
async function chooseVariants(
  pack: Pack,
  variants: ReadonlyMap<string, readonly CommandForm[]>,
  probing: boolean,
  probe: (binary: string) => Promise<ProbeResult>,
): Promise<{ pack: Pack } | { failure: Failure }> {
  const commands: Pack['commands'][number][] = [];
  for (const command of pack.commands) {
    const forms = variants.get(command.id);
    if (forms === undefined) {
      commands.push(command);
      continue;
    }
    let chosen: CommandForm | undefined;
    const failures: Failure[] = [];
    for (const form of forms) {
      const failure = probing
        ? await firstFailure(form.requires, (ri) => [...(form.at ?? []), 'requires', ri], probe)
        : undefined;
      if (failure === undefined) {
        chosen = form;
        break;
      }
      failures.push(failure);
    }
    if (chosen === undefined) {
      const first = failures[0]!;
      const reason = `${command.manifestId} runs none of its variants here (${failures.map((f) => f.reason).join('; ')})`;
      const binary = [...new Set(failures.map((f) => f.binary))].join(' or ');
      return { failure: { ...first, binary, reason, because: reason } };
    }
    const { argv, required, values, examples } = chosen;
    commands.push(Object.freeze({ ...command, argv, required, values, examples }));
  }
  return { pack: Object.freeze({ ...pack, commands: Object.freeze(commands) }) };
}

/** The first of `requires` that its probe does not satisfy, in declaration order. */
async function firstFailure(
  requires: readonly Requirement[],
  pathOf: (index: number) => Path,
  probe: (binary: string) => Promise<ProbeResult>,
): Promise<Failure | undefined> {
  for (const [ri, req] of requires.entries()) {
    const result = await probe(req.binary);
    const at = pathOf(ri);
    const fail = (code: Failure['code'], reason: string): Failure => ({
      binary: req.binary,
      reason,
      code,
      at,
    });
    if (result.kind === 'missing') {
      return {
        ...fail(Code.requirement_missing, `${req.binary} is not installed (${result.detail})`),
        missing: result.detail,
      };
    }
    if (result.kind === 'failed') {
      return fail(Code.requirement_version, `${req.binary} could not be probed: ${result.detail}`);
    }
    if (req.version === undefined) continue;
    if (result.version === undefined) {
      return {
        ...fail(
          Code.requirement_version,
          `${req.binary} --version printed no version number, so ${req.version} cannot be checked`,
        ),
        expected: req.version,
      };
    }
    if (!satisfies(result.version, req.version)) {
      return {
        ...fail(
          Code.requirement_version,
          `${req.binary} ${result.version} is installed but ${req.version} is required`,
        ),
        expected: req.version,
        found: result.version,
      };
    }
  }
  return undefined;
}
