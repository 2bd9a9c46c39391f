// An approval's plan: the command line it would allow, as the host recorded it when the call was
// made (rendered from the command's frozen template, credentials replaced). The console shows it
// and approves only what it can show; it cannot render one again, since the recorded argument
// values have their credentials replaced.
import type { ApprovalRecord } from '@harness/store/records';
import type { ApprovalPlan } from '../../answers';

const NOT_RECORDED =
  'its command line was not recorded: the host could not render it when the call was made (the pack or the command is missing, or its argv template failed to render; such a call would be refused anyway), or an older release recorded the request';

/** The plan of an approval: its argv when it is a non-empty list of strings, else why not. */
export function approvalPlan(record: Pick<ApprovalRecord, 'argv'>): ApprovalPlan {
  // Read as stored: a row from another writer is checked, not trusted to match the type.
  const argv: unknown = record.argv;
  if (argv === null || argv === undefined) return { ok: false, message: NOT_RECORDED };
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) {
    return { ok: false, message: 'its recorded command line is not a list of strings' };
  }
  if (argv.length === 0) return { ok: false, message: 'its recorded command line is empty' };
  return { ok: true, argv: [...argv] };
}

/** The answer to approving an approval whose plan is not `ok`: it can be denied, never approved. */
export function unrenderableMessage(id: string, plan: { message: string }): string {
  return `approval ${id} cannot be approved: ${plan.message}. The console approves only a call whose exact command line it shows. Deny it to clear it; once the pack renders, the agent's call asks again.`;
}
