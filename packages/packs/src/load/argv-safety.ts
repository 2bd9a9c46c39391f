// The load passes that turn ../argv-safety's and ../credential-flow's findings into warnings at their
// place in the file.
import { argvSafetyWarnings } from '../argv-safety';
import { credentialFlowWarnings, credentialsReceived } from '../credential-flow';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import type { CheckContext, Path, RawPack } from './types';

/** Each argv of a command entry (its own, or each variant's) and where it is written, relative to the entry. */
export function argvForms(rc: RawPack['commands'][number]): { argv: readonly string[]; at: Path }[] {
  if (rc.variants) return rc.variants.map((v, vi) => ({ argv: v.argv, at: ['variants', vi] }));
  return rc.argv ? [{ argv: rc.argv, at: [] }] : [];
}

/** Pushes a warning for every argv safety finding of every command of every pack. */
export function argvSafety(rawPacks: readonly RawPack[], ctx: CheckContext, warnings: PacksIssue[]): void {
  rawPacks.forEach((rp, pi) => {
    rp.commands.forEach((rc, ci) => {
      // A warning about an input itself is given once, not once per variant.
      const seen = new Set<string>();
      for (const form of argvForms(rc)) {
        for (const w of argvSafetyWarnings({ argv: form.argv, inputs: rc.inputs })) {
          const at = w.at[0] === 'inputs' ? w.at : [...form.at, ...w.at];
          const key = JSON.stringify(at);
          if (seen.has(key)) continue;
          seen.add(key);
          warnings.push(
            ctx.issue(Code.argv_safety, ['command_packs', pi, 'commands', ci, ...at], w.message, {
              command: `${rp.id}.${rc.id}`,
              input: w.input,
            }),
          );
        }
      }
    });
  });
}

/** Pushes a warning for every command that receives a credential and may show it transformed. */
export function credentialFlow(
  rawPacks: readonly RawPack[],
  ctx: CheckContext,
  warnings: PacksIssue[],
): void {
  rawPacks.forEach((rp, pi) => {
    const received = credentialsReceived(rp.env ?? {});
    rp.commands.forEach((rc, ci) => {
      const seen = new Set<string>();
      for (const form of argvForms(rc)) {
        const source = { ...rc, argv: form.argv };
        for (const w of credentialFlowWarnings(source, received)) {
          const key = JSON.stringify(w.at);
          if (seen.has(key)) continue;
          seen.add(key);
          warnings.push(
            ctx.issue(Code.credential_flow, ['command_packs', pi, 'commands', ci, ...w.at], w.message, {
              command: `${rp.id}.${rc.id}`,
              credentials: received,
              ...(w.input === undefined ? {} : { input: w.input }),
            }),
          );
        }
      }
    });
  });
}
