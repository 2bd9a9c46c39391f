// `loom audit tail|prune|verify|export`: reading the record (filtered, followed), trimming it,
// checking its chains (docs/audit.md) and exporting it as a self-verifying bundle.
import { closeSync, createReadStream, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
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
  if (sub === 'verify') return verify(rest, out, instanceOf);
  if (sub === 'export') return exportBundle(rest, out, instanceOf);
  if (sub !== 'tail')
    throw new LoomError(
      LoomErrorCode.usage,
      `unknown subcommand "audit ${sub}"; expected tail, prune, verify or export`,
    );
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

/**
 * The keys `--public-key` names: one key (`ed25519:…`), or a file holding one PEM public key or
 * several `ed25519:…` keys, one a line.
 */
async function pinnedKeys(value: string | undefined): Promise<string[]> {
  if (value === undefined) return [];
  const store = await import('@harness/store');
  const parse = (text: string): string => {
    try {
      return store.normalizePublicKey(text);
    } catch (error) {
      throw new LoomError(LoomErrorCode.usage, `--public-key: ${(error as Error).message}`);
    }
  };
  if (value.startsWith('ed25519:')) return [parse(value)];
  let text: string;
  try {
    text = readFileSync(value, 'utf8');
  } catch (error) {
    throw new LoomError(
      LoomErrorCode.usage,
      `--public-key must be a key (ed25519:…, as harness doctor prints it) or a readable file of keys; ${value}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (text.includes('BEGIN PUBLIC KEY')) return [parse(text)];
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map(parse);
}

/** `loom audit verify`: the chains of the instance's store, or of an export (`--from`). */
async function verify(
  argv: readonly string[],
  out: Out,
  instanceOf: (dir: string | undefined) => string,
): Promise<number> {
  const p = parseArgs(argv, { instance: true, from: true, 'public-key': true, json: false, debug: false });
  if (p.flags.help) {
    out(HELP.audit);
    return 0;
  }
  if (p.positional.length > 0)
    throw new LoomError(
      LoomErrorCode.usage,
      `audit verify takes no arguments, found ${p.positional.join(' ')}`,
    );
  const store = await import('@harness/store');
  const keys = await pinnedKeys(str(p, 'public-key'));
  const from = str(p, 'from');
  let result: Awaited<ReturnType<typeof store.verifyAuditStore>>;
  let what: string;
  if (from !== undefined) {
    const input = createReadStream(from, { highWaterMark: 1 << 20 });
    const opened = new Promise<void>((resolve, reject) => {
      input.once('open', () => resolve());
      input.once('error', reject);
    });
    try {
      await opened;
    } catch (error) {
      throw new LoomError(
        LoomErrorCode.usage,
        `--from ${from} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); name a file \`loom audit export\` wrote`,
      );
    }
    try {
      result = await store.verifyAuditExport(store.auditExportLines(input), { publicKeys: keys });
    } finally {
      input.destroy();
    }
    what = from;
  } else {
    const host = await import('@harness/host');
    const dir = instanceOf(str(p, 'instance'));
    // The instance's own key is pinned unless keys are named: its chain must be there, signed by it.
    const own = keys.length > 0 ? keys : [store.instanceAuditSigner(dir)?.publicKey ?? []].flat();
    const opened = await host.openStore(dir);
    try {
      result = await store.verifyAuditStore(opened, { publicKeys: own });
    } finally {
      await opened.close();
    }
    what = `the store of ${dir}`;
  }
  if (p.flags.json) {
    out(`${JSON.stringify(result)}\n`);
    return result.ok ? 0 : 1;
  }
  out(verifyReport(what, result));
  return result.ok ? 0 : 1;
}

/** What `audit verify` prints for a person: the verdict, then one line per chain. */
function verifyReport(
  what: string,
  r: Awaited<ReturnType<typeof import('@harness/store')['verifyAuditStore']>>,
): string {
  const lines: string[] = [];
  if (r.problem !== undefined) {
    lines.push(`TAMPERED ${r.problem.kind}: ${r.problem.message}`);
  } else {
    lines.push(
      `verified ${r.events} event(s) of ${what}: no event was changed, removed, inserted or reordered`,
    );
  }
  for (const c of r.chains) {
    const range = c.from === null ? 'no events' : `positions ${c.from}-${c.to}`;
    const key =
      c.publicKey === null
        ? 'no key'
        : `${c.publicKey}${c.pinned ? ' (pinned)' : ' (not pinned: name it with --public-key)'}`;
    const tail =
      c.unsigned > 0 ? `; ${c.unsigned} event(s) after the newest checkpoint are not signed yet` : '';
    lines.push(
      `  chain ${c.chain}: ${c.events} event(s), ${range}, signed through ${c.signedThrough}${tail}; key ${key}`,
    );
  }
  if (r.unchained > 0) lines.push(`  ${r.unchained} event(s) from before the store kept chains: not covered`);
  return `${lines.join('\n')}\n`;
}

/** `loom audit export --format jsonl [--out <file>]`: the self-verifying bundle. */
async function exportBundle(
  argv: readonly string[],
  out: Out,
  instanceOf: (dir: string | undefined) => string,
): Promise<number> {
  const p = parseArgs(argv, { instance: true, format: true, out: true, debug: false });
  if (p.flags.help) {
    out(HELP.audit);
    return 0;
  }
  const format = str(p, 'format');
  if (format !== 'jsonl')
    throw new LoomError(
      LoomErrorCode.usage,
      `audit export needs --format jsonl${format === undefined ? '' : `, found --format ${format}`} (the one format there is)`,
    );
  const store = await import('@harness/store');
  const host = await import('@harness/host');
  const dir = instanceOf(str(p, 'instance'));
  const signer = store.readAuditSigner(dir);
  const file = str(p, 'out');
  const opened = await host.openStore(dir);
  try {
    if (file === undefined) {
      const write = batched((text) => out(text));
      await store.exportAudit(opened, signer, write);
      write.flush();
      return 0;
    }
    // Written beside the file and renamed over it: a failed export leaves no half file behind.
    const staging = `${file}.${process.pid}.tmp`;
    const fd = openSync(staging, 'w', 0o600);
    let closed = false;
    try {
      const write = batched((text) => writeSync(fd, text));
      const written = await store.exportAudit(opened, signer, write);
      write.flush();
      closeSync(fd);
      closed = true;
      renameSync(staging, file);
      process.stderr.write(
        `exported ${written.events} event(s) and ${written.checkpoints} checkpoint(s) to ${file}\n`,
      );
    } catch (error) {
      if (!closed) closeSync(fd);
      rmSync(staging, { force: true });
      throw error;
    }
    return 0;
  } finally {
    await opened.close();
  }
}

/** Lines gathered into writes of about 64 KiB; `flush` writes what is left. */
function batched(sink: (text: string) => void): ((text: string) => void) & { flush(): void } {
  let pending: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (pending.length > 0) sink(pending.join(''));
    pending = [];
    size = 0;
  };
  return Object.assign(
    (text: string): void => {
      pending.push(text);
      size += text.length;
      if (size >= 65_536) flush();
    },
    { flush },
  );
}
