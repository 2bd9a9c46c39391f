// `loom audit tail|prune|verify|export`: reading the record (filtered, followed), trimming it,
// checking its chains against a key kept outside the instance (docs/audit.md) and exporting it as a
// self-verifying bundle, or into a directory of exports that a later history is compared with.
import {
  closeSync,
  constants,
  copyFileSync,
  createReadStream,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
 * The keys `--public-key` names: one key (`ed25519:…`), or a file holding PEM public keys or
 * `ed25519:…` keys, one a line (`#` comments allowed: a recorded key file is one).
 */
async function pinnedKeys(value: string | undefined): Promise<string[]> {
  if (value === undefined) return [];
  const store = await import('@harness/store');
  const parse = (read: () => string[]): string[] => {
    try {
      return read();
    } catch (error) {
      throw new LoomError(LoomErrorCode.usage, `--public-key: ${(error as Error).message}`);
    }
  };
  if (value.startsWith('ed25519:')) return parse(() => [store.normalizePublicKey(value)]);
  let text: string;
  try {
    text = readFileSync(value, 'utf8');
  } catch (error) {
    throw new LoomError(
      LoomErrorCode.usage,
      `--public-key must be a key (ed25519:…, as harness doctor prints it) or a readable file of keys; ${value}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parse(() => store.publicKeysIn(text, value));
}

/** The key(s) a verification checked against, and where they came from. */
type CheckedKey =
  | { source: '--public-key'; publicKeys: string[]; from: string }
  | { source: 'recorded'; publicKeys: string[]; file: string }
  | { source: 'instance'; publicKeys: string[]; file: string }
  | { source: 'export'; publicKeys: string[] }
  | { source: 'none'; publicKeys: string[] };

/** The warning a verification prints when no key independent of what it checks was available. */
function keyWarning(key: CheckedKey, dir: string | undefined): string | undefined {
  const how =
    dir === undefined
      ? 'name the key you kept with --public-key'
      : `record it once you trust it (loom audit verify --record --instance ${dir}) or name a key you kept with --public-key`;
  if (key.source === 'instance' || key.source === 'none')
    return `WARNING: only the instance's own key was available (${key.source === 'instance' ? key.file : 'and there is none'}): whoever can write the instance can replace that key and sign a whole new history with it; ${how}`;
  if (key.source === 'export')
    return `WARNING: only the export's own key (its header) was available: a rewritten export signed with a new key also verifies; ${how}`;
  return undefined;
}

/** How the key line reads: the key(s), and where they came from. */
function keyLine(key: CheckedKey): string {
  const keys = key.publicKeys.join(', ');
  switch (key.source) {
    case '--public-key':
      return `checked against ${keys}, given with --public-key ${key.from}`;
    case 'recorded':
      return `checked against ${keys}, recorded in ${key.file}`;
    case 'instance':
      return `checked against ${keys}, the instance's own key (${key.file})`;
    case 'export':
      return `checked against the export's own key ${keys}`;
    case 'none':
      return 'checked against no key: the instance has none and none is recorded';
  }
}

/** An export file opened for reading, or a `usage` LoomError naming the flag and the file. */
async function openExport(file: string, flag: string): Promise<ReturnType<typeof createReadStream>> {
  const input = createReadStream(file, { highWaterMark: 1 << 20 });
  try {
    await new Promise<void>((resolve, reject) => {
      input.once('open', () => resolve());
      input.once('error', reject);
    });
  } catch (error) {
    throw new LoomError(
      LoomErrorCode.usage,
      `${flag} ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); name a file \`loom audit export\` wrote`,
    );
  }
  return input;
}

/** The exports `--against` names: one file, or every `loom-audit-*.jsonl` of a directory, oldest first. */
function againstFiles(value: string): string[] {
  let dir: boolean;
  try {
    dir = statSync(value).isDirectory();
  } catch (error) {
    throw new LoomError(
      LoomErrorCode.usage,
      `--against must name an export or a directory of them (loom audit export --to); ${value}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (!dir) return [value];
  const files = readdirSync(value)
    .filter((name) => EXPORT_NAME.test(name))
    .sort()
    .map((name) => join(value, name));
  if (files.length === 0)
    throw new LoomError(
      LoomErrorCode.usage,
      `--against ${value} holds no export (loom-audit-*.jsonl); write one with loom audit export --to ${value}`,
    );
  return files;
}

/** The name `--to` gives an export: the last event's `seq` (12 digits, so names sort) and hash. */
const EXPORT_NAME = /^loom-audit-\d{12}-[0-9a-z]+\.jsonl$/;

type Verification = Awaited<ReturnType<typeof import('@harness/store')['verifyAuditStore']>>;
type Comparison = Awaited<ReturnType<typeof import('@harness/store')['compareAuditWithExport']>>;

/** `loom audit verify`: the chains of the instance's store, or of an export (`--from`). */
async function verify(
  argv: readonly string[],
  out: Out,
  instanceOf: (dir: string | undefined) => string,
): Promise<number> {
  const p = parseArgs(argv, {
    instance: true,
    from: true,
    'public-key': true,
    against: true,
    record: false,
    json: false,
    debug: false,
  });
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
  const given = str(p, 'public-key');
  const keys = await pinnedKeys(given);
  const from = str(p, 'from');
  const against = str(p, 'against');
  if (from !== undefined) {
    if (against !== undefined || p.flags.record === true)
      throw new LoomError(
        LoomErrorCode.usage,
        '--against and --record check an instance; --from checks an export alone: drop one',
      );
    const input = await openExport(from, '--from');
    let result: Verification & { signedBy: string | null };
    try {
      result = await store.verifyAuditExport(store.auditExportLines(input), { publicKeys: keys });
    } finally {
      input.destroy();
    }
    const key: CheckedKey =
      given !== undefined
        ? { source: '--public-key', publicKeys: keys, from: given }
        : { source: 'export', publicKeys: result.signedBy === null ? [] : [result.signedBy] };
    return report(out, p.flags.json === true, from, result, key, undefined, []);
  }
  const dir = instanceOf(str(p, 'instance'));
  const key = keyToCheck(store, dir, given, keys);
  const own = ownKey(store, dir);
  const host = await import('@harness/host');
  const opened = await host.openStore(dir);
  let result: Verification;
  const compared: { file: string; comparison: Comparison }[] = [];
  try {
    result = await store.verifyAuditStore(opened, { publicKeys: key.publicKeys });
    if (own !== undefined && key.source !== 'instance' && !key.publicKeys.includes(own)) {
      const against =
        key.source === 'recorded' ? `the key recorded in ${key.file}` : 'a key given with --public-key';
      result = {
        ...result,
        ok: false,
        problem: {
          kind: 'replaced_key',
          chain: store.chainOf(own),
          seq: null,
          message: `the instance's audit key ${own} (${join(dir, store.AUDIT_KEY_FILE)}) is not ${against} (${key.publicKeys.join(', ')}): the key was replaced, and what it signed is not the history that key vouches for`,
        },
      };
    }
    for (const file of result.ok && against !== undefined ? againstFiles(against) : []) {
      const input = await openExport(file, '--against');
      try {
        const comparison = await store.compareAuditWithExport(opened, store.auditExportLines(input), {
          publicKeys: key.publicKeys,
        });
        compared.push({ file, comparison });
        if (!comparison.ok) {
          result = { ...result, ok: false, problem: comparison.problem };
          break;
        }
      } finally {
        input.destroy();
      }
    }
  } finally {
    await opened.close();
  }
  let recorded: string | undefined;
  if (p.flags.record === true && result.ok && own !== undefined && key.publicKeys.includes(own)) {
    const done = store.recordAuditKey(dir, own);
    recorded = `${done.status === 'recorded' ? 'recorded' : 'already recorded'}: ${done.publicKey} in ${done.file}`;
  }
  return report(out, p.flags.json === true, `the store of ${dir}`, result, key, dir, compared, recorded);
}

/** The instance's own public key (its `audit-key.pem`), without making one; `undefined` when it has none. */
function ownKey(store: typeof import('@harness/store'), dir: string): string | undefined {
  try {
    return store.readAuditSigner(dir).publicKey;
  } catch {
    return undefined;
  }
}

/** The key(s) to check an instance against: `--public-key`, else the recorded key, else its own. */
function keyToCheck(
  store: typeof import('@harness/store'),
  dir: string,
  given: string | undefined,
  keys: string[],
): CheckedKey {
  if (given !== undefined) return { source: '--public-key', publicKeys: keys, from: given };
  let recorded: ReturnType<typeof store.readRecordedAuditKey>;
  try {
    recorded = store.readRecordedAuditKey(dir);
  } catch (error) {
    throw new LoomError(
      LoomErrorCode.usage,
      `${(error as Error).message}; or name the key you kept with --public-key`,
    );
  }
  if (recorded !== undefined)
    return { source: 'recorded', publicKeys: [recorded.publicKey], file: recorded.file };
  const own = ownKey(store, dir);
  return own === undefined
    ? { source: 'none', publicKeys: [] }
    : { source: 'instance', publicKeys: [own], file: join(dir, store.AUDIT_KEY_FILE) };
}

/** Prints a verification (text or `--json`); its exit code. */
function report(
  out: Out,
  json: boolean,
  what: string,
  result: Verification,
  key: CheckedKey,
  dir: string | undefined,
  compared: readonly { file: string; comparison: Comparison }[],
  recorded?: string,
): number {
  const warning = keyWarning(key, dir);
  if (json) {
    const { publicKeys, source } = key;
    const where = 'file' in key ? { file: key.file } : 'from' in key ? { from: key.from } : {};
    out(
      `${JSON.stringify({
        ...result,
        key: { source, publicKeys, ...where, ...(warning === undefined ? {} : { warning }) },
        against: compared.map(({ file, comparison }) => ({ file, ...comparison })),
        ...(recorded === undefined ? {} : { recorded }),
      })}\n`,
    );
    return result.ok ? 0 : 1;
  }
  const lines = [verifyVerdict(what, result), `  ${keyLine(key)}`];
  for (const c of result.chains) lines.push(chainLine(c, key));
  if (result.unchained > 0)
    lines.push(`  ${result.unchained} event(s) from before the store kept chains: not covered`);
  for (const { file, comparison: c } of compared) {
    if (!c.ok) continue;
    const pruned = c.pruned > 0 ? `; ${c.pruned} of its events were pruned from the store since` : '';
    lines.push(
      `  the same history as the export ${file} of ${c.exportedAt}: ${c.compared} event(s)${pruned}`,
    );
  }
  if (recorded !== undefined) lines.push(`  ${recorded}`);
  if (warning !== undefined) lines.push(warning);
  out(`${lines.join('\n')}\n`);
  return result.ok ? 0 : 1;
}

/** The first line of a verification: the verdict. */
function verifyVerdict(what: string, r: Verification): string {
  return r.problem !== undefined
    ? `TAMPERED ${r.problem.kind}: ${r.problem.message}`
    : `verified ${r.events} event(s) of ${what}: no event was changed, removed, inserted or reordered`;
}

/** One chain of a verification: its events, how far they are signed, and by which key. */
function chainLine(c: Verification['chains'][number], key: CheckedKey): string {
  const range = c.from === null ? 'no events' : `positions ${c.from}-${c.to}`;
  const by =
    c.publicKey === null
      ? 'no key'
      : `${c.publicKey}${
          !c.pinned
            ? ' (not checked: name it with --public-key)'
            : key.source === 'instance'
              ? " (the instance's own key)"
              : ' (the key checked against)'
        }`;
  const tail =
    c.unsigned > 0 ? `; ${c.unsigned} event(s) after the newest checkpoint are not signed yet` : '';
  return `  chain ${c.chain}: ${c.events} event(s), ${range}, signed through ${c.signedThrough}${tail}; key ${by}`;
}

/**
 * `loom audit export --format jsonl [--out <file>]`: the self-verifying bundle; `--to <dir>` writes a
 * new file named by the last event, never over another.
 */
async function exportBundle(
  argv: readonly string[],
  out: Out,
  instanceOf: (dir: string | undefined) => string,
): Promise<number> {
  const p = parseArgs(argv, { instance: true, format: true, out: true, to: true, debug: false });
  if (p.flags.help) {
    out(HELP.audit);
    return 0;
  }
  const format = str(p, 'format');
  const to = str(p, 'to');
  if (format !== 'jsonl' && !(to !== undefined && format === undefined))
    throw new LoomError(
      LoomErrorCode.usage,
      `audit export needs --format jsonl${format === undefined ? '' : `, found --format ${format}`} (the one format there is)`,
    );
  const file = str(p, 'out');
  if (to !== undefined && file !== undefined)
    throw new LoomError(
      LoomErrorCode.usage,
      '--to <dir> and --out <file> both name where to write: give one',
    );
  const store = await import('@harness/store');
  const host = await import('@harness/host');
  const dir = instanceOf(str(p, 'instance'));
  const signer = store.readAuditSigner(dir);
  if (to !== undefined) return exportTo(to, dir, signer);
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

/**
 * `--to <dir>`: the export is written in a private temporary directory, then copied into `dir` under
 * its own name (the last event's `seq` and hash) with an exclusive create, so no export ever
 * replaces another there: a later, forged history can add a file, never rewrite an earlier one.
 * No temporary file is made in `dir`, which may be append-only (`chattr +a`: entries are added, not
 * removed).
 */
async function exportTo(
  to: string,
  dir: string,
  signer: ReturnType<typeof import('@harness/store')['readAuditSigner']>,
): Promise<number> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(to))
    throw new LoomError(
      LoomErrorCode.usage,
      `--to takes a directory, found the URL ${to}; mount the place (sshfs, NFS) and name the directory, or pipe \`loom audit export --format jsonl\` to it`,
    );
  let isDir = false;
  try {
    isDir = statSync(to).isDirectory();
  } catch {
    // Reported below, as for a file.
  }
  if (!isDir)
    throw new LoomError(
      LoomErrorCode.usage,
      `--to ${to} is not a directory; create it (somewhere the instance's processes cannot write) and run again`,
    );
  const store = await import('@harness/store');
  const host = await import('@harness/host');
  const work = mkdtempSync(join(tmpdir(), 'loom-export-'));
  const staging = join(work, 'export.jsonl');
  try {
    const opened = await host.openStore(dir);
    let written: Awaited<ReturnType<typeof store.exportAudit>>;
    const fd = openSync(staging, 'wx', 0o400);
    try {
      const write = batched((text) => writeSync(fd, text));
      written = await store.exportAudit(opened, signer, write);
      write.flush();
    } finally {
      closeSync(fd);
      await opened.close();
    }
    const last = written.last;
    const name = `loom-audit-${String(last?.seq ?? 0).padStart(12, '0')}-${last === null ? 'empty' : (last.hash ?? 'unchained').slice(0, 16)}.jsonl`;
    const target = join(to, name);
    try {
      copyFileSync(staging, target, constants.COPYFILE_EXCL);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new LoomError(
          LoomErrorCode.usage,
          `could not write ${target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; check the directory is writable`,
        );
      process.stderr.write(
        `${target} already holds the record through event ${last?.seq ?? 0}: kept it, nothing new to export\n`,
      );
      return 0;
    }
    process.stderr.write(
      `exported ${written.events} event(s) and ${written.checkpoints} checkpoint(s) to ${target}\n`,
    );
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
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
