// `loom approvals list|watch|approve|deny`: what a person needs to judge a call, and the decision.
import { parseArgs, str } from './args';
import { LoomError, LoomErrorCode } from './errors';
import { HELP } from './help';
import { interruptSignal } from './interrupt';
import { approvalBlock, approvalLine } from './show';

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
  const host = await import('@harness/host');
  const dir = instanceOf(str(p, 'instance'));
  if (sub === 'list') {
    const list = await host.listApprovals(dir, p.flags.all ? { status: 'all' } : {});
    if (p.flags.json) out(`${JSON.stringify({ approvals: list })}\n`);
    else if (list.length === 0) out(p.flags.all ? 'no approvals\n' : 'no pending approvals\n');
    else for (const a of list) out(approvalBlock(a));
    return 0;
  }
  if (sub === 'watch') {
    if (p.flags.all)
      throw new LoomError(LoomErrorCode.usage, 'approvals watch follows pending approvals only; drop --all');
    const { signal, release } = interruptSignal();
    try {
      for await (const a of host.followApprovals(dir, { signal })) {
        out(p.flags.json ? `${JSON.stringify({ approval: a })}\n` : approvalLine(a));
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
    const by = str(p, 'by') ?? `person:${process.env.USER ?? 'owner'}`;
    const record = await host.decideApproval(dir, id, sub === 'approve' ? 'approved' : 'denied', by);
    if (p.flags.json) out(`${JSON.stringify({ approval: record })}\n`);
    else {
      out(
        record.status === 'approved'
          ? `${record.id} approved: the identical call may run once, until ${record.expires_at}\n`
          : `${record.id} denied: the call will not run; the agent is told a person denied it\n`,
      );
      out(approvalBlock(record));
    }
    return 0;
  }
  throw new LoomError(
    LoomErrorCode.usage,
    `unknown subcommand "approvals ${sub}"; expected list, watch, approve or deny`,
  );
}
