// The load pass that turns ../argv-safety's findings into warnings at their place in the file.
import { argvSafetyWarnings } from '../argv-safety';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import type { CheckContext, RawPack } from './types';

/** Pushes a warning for every argv safety finding of every command of every pack. */
export function argvSafety(rawPacks: readonly RawPack[], ctx: CheckContext, warnings: PacksIssue[]): void {
  rawPacks.forEach((rp, pi) => {
    rp.commands.forEach((rc, ci) => {
      for (const w of argvSafetyWarnings(rc)) {
        warnings.push(ctx.issue(Code.ARGV_SAFETY, ['command_packs', pi, 'commands', ci, ...w.at], w.message));
      }
    });
  });
}
