// `loom approvals list|watch|approve|deny`: what a person needs to judge a call, and the decision.
import { listApprovalsCommand } from '@harness/config/instance';
import { parseArgs, str } from './args';
import { LoomError, LoomErrorCode } from './errors';
import { HELP } from './help';
import { interruptSignal } from './interrupt';

type Out = (text: string) => void;

/** `loom approvals …`; returns the exit code. */
export async function approvals(
  argv: readonly string[],
  out: Out,
  instanceOf: (d?: string) => string,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    out(HELP.approvals);
    return sub === undefined ? 2 : 0;
  }
  const p = parseArgs(rest, { instance: true, json: false, all: false, by: true, debug: false });
  if (p.flags.help) {
    out(HELP.approvals);
    return 0;
  }
  const [host, operator] = await Promise.all([import('@harness/host'), import('@harness/host/operator')]);
  const dir = instanceOf(str(p, 'instance'));
  if (sub === 'list') {
    const list = await host.listApprovals(dir, p.flags.all ? { status: 'all' } : {});
    if (p.flags.json) out(`${JSON.stringify({ approvals: list })}\n`);
    else out(operator.approvalsListing(list, Boolean(p.flags.all), new Date()));
    return 0;
  }
  if (sub === 'watch') {
    if (p.flags.all)
      throw new LoomError(LoomErrorCode.usage, 'approvals watch follows pending approvals only; drop --all');
    const { signal, release } = interruptSignal();
    try {
      for await (const a of host.followApprovals(dir, { signal })) {
        out(p.flags.json ? `${JSON.stringify({ approval: a })}\n` : operator.approvalLine(a));
      }
    } finally {
      release();
    }
    return 0;
  }
  if (sub === 'approve' || sub === 'deny') {
    const [id, ...more] = p.positional;
    if (!id || more.length > 0)
      throw new LoomError(LoomErrorCode.usage, `approvals ${sub} takes one approval id`);
    const by = str(p, 'by') ?? operator.personName();
    const decided = await operator.decideAsPerson(
      dir,
      id,
      sub === 'approve' ? 'approved' : 'denied',
      by,
      listApprovalsCommand('loom', str(p, 'instance')),
    );
    if (!decided.ok) throw new LoomError(LoomErrorCode.not_decidable, decided.message);
    out(
      p.flags.json
        ? `${JSON.stringify({ approval: decided.record })}\n`
        : operator.decisionText(decided.record),
    );
    return 0;
  }
  throw new LoomError(
    LoomErrorCode.usage,
    `unknown subcommand "approvals ${sub}"; expected list, watch, approve or deny`,
  );
}
