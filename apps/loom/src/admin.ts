// The operator's subcommands: broker, approvals, audit, init. They load the host (SQLite, packs).
import { parseArgs, str, UsageError } from './args';
import { HELP } from './help';

type Out = (text: string) => void;

const instanceOf = (dir: string | undefined): string => {
  const d = dir ?? process.env.LOOM_INSTANCE_DIR;
  if (!d) throw new UsageError('--instance <dir> is required (or set LOOM_INSTANCE_DIR)');
  return d;
};

/** Runs `loom <cmd> …` for the operator subcommands; returns the exit code. */
export async function adminMain(cmd: string, argv: readonly string[], out: Out): Promise<number> {
  const err = (text: string): void => {
    process.stderr.write(text);
  };
  try {
    switch (cmd) {
      case 'broker':
        return await broker(argv, out);
      case 'approvals':
        return await approvals(argv, out);
      case 'audit':
        return await audit(argv, out);
      default:
        return await init(argv, out);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      err(`loom ${cmd}: ${error.message}\n`);
      return 2;
    }
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && (error as Error).name === 'HostError') {
      err(`loom ${cmd}: ${(error as Error).message}\n`);
      return 1;
    }
    err(`loom ${cmd}: internal error: ${(error as Error).message}\n`);
    if (argv.includes('--debug')) err(`${(error as Error).stack}\n`);
    return 4;
  }
}

async function broker(argv: readonly string[], out: Out): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    out(HELP.broker);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'start') throw new UsageError(`unknown subcommand "broker ${sub}"; expected start`);
  const p = parseArgs(rest, { instance: true, queue: true, scope: true, debug: false });
  if (p.flags.help) {
    out(HELP.broker);
    return 0;
  }
  const queuePath = str(p, 'queue');
  const scope = str(p, 'scope');
  if (!queuePath || !scope)
    throw new UsageError('broker start needs --instance <dir> --queue <path> --scope <file>');
  // Signals are handled from before the broker exists, so a stop asked for during start-up (or
  // right after the ready line) still closes it cleanly.
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    const { startBroker } = await import('@harness/host');
    const broker = await startBroker({ instanceDir: instanceOf(str(p, 'instance')), queuePath, scope });
    out(
      `${JSON.stringify({ ready: true, queue: broker.queuePath, run: broker.scope.run, agent: broker.scope.actor, pid: process.pid })}\n`,
    );
    await stopped;
    await broker.close();
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
  return 0;
}

async function approvals(argv: readonly string[], out: Out): Promise<number> {
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
    else if (list.length === 0) out('no pending approvals\n');
    else
      for (const a of list) {
        out(
          `${a.id}  ${a.status}  ${a.command}  agent=${a.agent}  run=${a.run}  args=[${a.arg_names.join(',')}]  expires=${a.expires_at}\n`,
        );
      }
    return 0;
  }
  if (sub === 'approve' || sub === 'deny') {
    const [id, ...more] = p.positional;
    if (!id || more.length > 0) throw new UsageError(`approvals ${sub} takes one approval id`);
    const by = str(p, 'by') ?? `person:${process.env.USER ?? 'owner'}`;
    const record = await host.decideApproval(dir, id, sub === 'approve' ? 'approved' : 'denied', by);
    if (p.flags.json) out(`${JSON.stringify({ approval: record })}\n`);
    else if (record.status === 'approved')
      out(`${record.id} approved: the identical call may run once, until ${record.expires_at}\n`);
    else out(`${record.id} denied: the call will not run; the agent is told a person denied it\n`);
    return 0;
  }
  throw new UsageError(`unknown subcommand "approvals ${sub}"; expected list, approve or deny`);
}

async function audit(argv: readonly string[], out: Out): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    out(HELP.audit);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'prune') return auditPrune(rest, out);
  if (sub !== 'tail') throw new UsageError(`unknown subcommand "audit ${sub}"; expected tail or prune`);
  const p = parseArgs(rest, { instance: true, json: false, n: true, debug: false });
  if (p.flags.help) {
    out(HELP.audit);
    return 0;
  }
  const nText = str(p, 'n') ?? '20';
  if (!/^[1-9][0-9]{0,5}$/.test(nText)) throw new UsageError(`-n must be a positive count, found ${nText}`);
  const host = await import('@harness/host');
  const events = await host.tailAudit(instanceOf(str(p, 'instance')), Number(nText));
  if (p.flags.json) out(`${JSON.stringify({ events })}\n`);
  else
    for (const e of events) {
      out(
        `${e.seq}  ${e.at}  ${e.actor}  ${e.phase}  ${e.command}  ${e.outcome}/${e.code}${e.reason ? ` (${e.reason})` : ''}\n`,
      );
    }
  return 0;
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--before`: a date or ISO time, or a duration (`30d`, `12h`, `90m`) counted back from `now`. */
export function readBefore(text: string, now: Date = new Date()): Date {
  const duration = /^([1-9][0-9]{0,5})([mhd])$/.exec(text);
  if (duration)
    return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[duration[2] as 'm' | 'h' | 'd']);
  const date = /^\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(text) ? new Date(text) : undefined;
  if (date === undefined || Number.isNaN(date.getTime()))
    throw new UsageError(
      `--before must be a date (2026-11-01), an ISO time (2026-11-01T12:00:00Z) or a duration (30d, 12h, 90m), found '${text}'`,
    );
  return date;
}

async function auditPrune(argv: readonly string[], out: Out): Promise<number> {
  const p = parseArgs(argv, { instance: true, json: false, before: true, debug: false });
  if (p.flags.help) {
    out(HELP.audit);
    return 0;
  }
  const text = str(p, 'before');
  if (text === undefined)
    throw new UsageError('audit prune needs --before <date|duration>, e.g. --before 30d');
  const before = readBefore(text);
  const host = await import('@harness/host');
  const removed = await host.pruneStore(instanceOf(str(p, 'instance')), before);
  if (p.flags.json) out(`${JSON.stringify({ before: before.toISOString(), ...removed })}\n`);
  else
    out(
      `removed ${removed.audit} audit event(s) and ${removed.approvals} spent approval(s) from before ${before.toISOString()}\n`,
    );
  return 0;
}

async function init(argv: readonly string[], out: Out): Promise<number> {
  const p = parseArgs(argv, { workspace: true, json: false, debug: false });
  if (p.flags.help) {
    out(HELP.init);
    return 0;
  }
  const [dir, ...more] = p.positional;
  const workspace = str(p, 'workspace');
  if (!dir || more.length > 0 || !workspace)
    throw new UsageError('usage: loom init <dir> --workspace <file>');
  const { initInstance } = await import('@harness/host');
  const info = await initInstance(dir, workspace);
  if (p.flags.json) out(`${JSON.stringify(info)}\n`);
  else out(`initialised ${info.dir} (workspace ${info.workspaceFile})\n`);
  return 0;
}
