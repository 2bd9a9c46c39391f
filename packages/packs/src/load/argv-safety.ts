// The load passes that turn ../argv-safety's and ../credential-flow's findings into warnings at their
// place in the file.
import { argvSafetyWarnings } from '../argv-safety';
import { credentialFlowWarnings, credentialsReceived } from '../credential-flow';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import type { CheckContext, RawPack } from './types';

/** Pushes a warning for every argv safety finding of every command of every pack. */
export function argvSafety(rawPacks: readonly RawPack[], ctx: CheckContext, warnings: PacksIssue[]): void {
  rawPacks.forEach((rp, pi) => {
    rp.commands.forEach((rc, ci) => {
      for (const w of argvSafetyWarnings(rc)) {
        warnings.push(
          ctx.issue(Code.argv_safety, ['command_packs', pi, 'commands', ci, ...w.at], w.message, {
            command: `${rp.id}.${rc.id}`,
            input: w.input,
          }),
        );
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
      for (const w of credentialFlowWarnings(rc, received)) {
        warnings.push(
          ctx.issue(Code.credential_flow, ['command_packs', pi, 'commands', ci, ...w.at], w.message, {
            command: `${rp.id}.${rc.id}`,
            credentials: received,
            ...(w.input === undefined ? {} : { input: w.input }),
          }),
        );
      }
    });
  });
}
