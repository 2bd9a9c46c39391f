// `loom audit tail|prune`: reading the record (filtered, followed) and trimming it.
import { parseDuration, RETENTION_WINDOW } from '@harness/config';
import { auditLine } from '@harness/host/operator';
import type { AuditEvent, AuditQuery } from '@harness/store';
import { AUDIT_PAGE_MAX } from '@harness/store/records';
import { type Parsed, parseArgs, str } from './args';
import { LoomError, LoomErrorCode } from './errors';
import { HELP } from './help';
import { interruptSignal } from './interrupt';

type Out = (text: string) => void;

/** A time flag: a date or ISO time, or a retention window (`30d`, `12h`, `90m`) counted back from `now`. */
export function readWhen(flag: string, text: string, now: Date = new Date()): Date {
  const ago = parseDuration(text, RETENTION_WINDOW);
  if (ago !== undefined) return new Date(now.getTime() - ago);
  const date = /^\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(text) ? new Date(text) : undefined;
  if (date === undefined || Number.isNaN(date.getTime()))
    throw new LoomError(
      LoomErrorCode.usage,
      `${flag} must be a date (2026-11-01), an ISO time (2026-11-01T12:00:00Z) or a duration (30d, 12h, 90m), found '${text}'`,
    );
  return date;
}

/** `loom audit …`; returns the exit code. */
export async function audit(
  argv: readonly string[],
  out: Out,
  instanceOf: (dir: string | undefined) => string,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    out(HELP.audit);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'prune') return prune(rest, out, instanceOf);
  if (sub !== 'tail')
    throw new LoomError(LoomErrorCode.usage, `unknown subcommand "audit ${sub}"; expected tail or prune`);
  return tail(rest, out, instanceOf);
}

/** The filters of `audit tail` as an audit query (`--agent me` is the actor `agent:me`). */
function queryOf(p: Parsed): AuditQuery {
  const agent = str(p, 'agent');
  const command = str(p, 'command');
  const status = str(p, 'status');
  const since = str(p, 'since');
  return {
    ...(agent === undefined ? {} : { actor: agent.includes(':') ? agent : `agent:${agent}` }),
    ...(command === undefined ? {} : { command }),
    ...(status === undefined ? {} : { outcome: status }),
    ...(since === undefined ? {} : { since: readWhen('--since', since).toISOString() }),
  };
}

async function tail(
  argv: readonly string[],
  out: Out,
  instanceOf: (dir: string | undefined) => string,
): Promise<number> {
  const p = parseArgs(argv, {
    instance: true,
    json: false,
    n: true,
    follow: false,
    agent: true,
    command: true,
    status: true,
    since: true,
    debug: false,
  });
  if (p.flags.help) {
    out(HELP.audit);
    return 0;
  }
  if (p.positional.length > 0)
    throw new LoomError(
      LoomErrorCode.usage,
      `audit tail takes no arguments, found ${p.positional.join(' ')}; filters are flags`,
    );
  const nText = str(p, 'n') ?? '20';
  if (!/^[1-9][0-9]{0,5}$/.test(nText))
    throw new LoomError(LoomErrorCode.usage, `-n must be a positive count, found ${nText}`);
  const query = queryOf(p);
  const host = await import('@harness/host');
  const limit = Math.min(Number(nText), AUDIT_PAGE_MAX);
  const dir = instanceOf(str(p, 'instance'));
  // One line per call: a `start` row is left out of the human view, since every one has a `run` row
  // or a `reap` event with its call_id (docs/host.md, "Audit"); `--json` and `--status started` keep it.
  const shown = (e: AuditEvent): boolean =>
    p.flags.json === true || e.phase !== 'start' || query.outcome === 'started';
  if (p.flags.follow) {
    const { signal, release } = interruptSignal();
    try {
      for await (const e of host.followAudit(dir, { ...query, limit }, { signal })) {
        if (shown(e)) out(p.flags.json ? `${JSON.stringify(e)}\n` : auditLine(e));
      }
    } finally {
      release();
    }
    return 0;
  }
  // Pages of at most 1000, read backwards until -n events or the start of the log.
  const events: AuditEvent[] = [];
  let before: number | undefined;
  do {
    const want = Math.min(Number(nText) - events.length, AUDIT_PAGE_MAX);
    const page = await host.queryAudit(dir, {
      ...query,
      limit: want,
      ...(before === undefined ? {} : { before }),
    });
    events.unshift(...page.events.filter(shown));
    before = page.older ?? undefined;
  } while (before !== undefined && events.length < Number(nText));
  if (p.flags.json) out(`${JSON.stringify({ events })}\n`);
  else for (const e of events) out(auditLine(e));
  return 0;
}

async function prune(
  argv: readonly string[],
  out: Out,
  instanceOf: (dir: string | undefined) => string,
): Promise<number> {
  const p = parseArgs(argv, { instance: true, json: false, before: true, debug: false });
  if (p.flags.help) {
    out(HELP.audit);
    return 0;
  }
  const text = str(p, 'before');
  if (text === undefined)
    throw new LoomError(LoomErrorCode.usage, 'audit prune needs --before <date|duration>, e.g. --before 30d');
  const before = readWhen('--before', text);
  const host = await import('@harness/host');
  const removed = await host.pruneStore(instanceOf(str(p, 'instance')), before);
  if (p.flags.json) out(`${JSON.stringify({ before: before.toISOString(), ...removed })}\n`);
  else
    out(
      `removed ${removed.audit} audit event(s) and ${removed.approvals} spent approval(s) from before ${before.toISOString()}\n`,
    );
  return 0;
}
