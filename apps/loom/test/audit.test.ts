// `loom audit verify` and `loom audit export` on a real instance (docs/audit.md): the instance's key
// made by `loom init` and recorded in the user config, a broker's events chained and checkpointed at
// its shutdown, a bundle that verifies offline, a changed event named on stdout, and the two
// forgeries of a same-user process (events deleted and re-signed with audit-key.pem; the key
// replaced and the whole history re-signed) against the recorded key and an earlier export.
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  auditKeyRecordFile,
  checkpointText,
  eventHash,
  GENESIS,
  readAuditSigner,
  readRecordedAuditKey,
} from '@harness/store';
import { tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BrokerProcess, killBrokers, loom, startBrokerProcess, TEST_CONFIG_HOME } from './cli';

const WORKSPACE = `version: 1
command_packs:
  - id: text
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
agents:
  - id: reader
    grants: [pack:text]
`;

let t: { path: string; cleanup: () => void };
let instance: string;
const brokers: BrokerProcess[] = [];

beforeEach(async () => {
  t = tempDir('loom-audit-');
  writeFileSync(join(t.path, 'workspace.yaml'), WORKSPACE);
  instance = join(t.path, 'instance');
  const r = await loom(['init', instance, '--workspace', join(t.path, 'workspace.yaml')]);
  expect(r.code, r.stderr).toBe(0);
});
afterEach(async () => {
  await killBrokers(brokers);
  t.cleanup();
});

/** Three `text.echo` calls through a broker, which is then stopped (SIGTERM): its shutdown checkpoint. */
async function threeCalls(): Promise<void> {
  const scope = join(t.path, 'scope.yaml');
  writeFileSync(scope, 'run: r1\nagent: reader\n');
  const socket = join(t.path, 'q.sock');
  const b = await startBrokerProcess(instance, socket, scope);
  brokers.push(b);
  for (const message of ['one', 'two', 'three']) {
    const r = await loom(['command', 'run', 'text.echo', '--args-json', '-', '--json'], {
      env: { LOOM_PAGE_RPC_QUEUE: socket },
      stdin: JSON.stringify({ message }),
    });
    expect(r.json()).toMatchObject({ ok: true });
  }
  b.child.kill('SIGTERM');
  expect(await b.exited).toMatchObject({ code: 0 });
}

describe('loom audit verify and export', () => {
  it('creates the instance key with mode 0600 and verifies the store a broker wrote, signed through its shutdown [AUD-20]', async () => {
    expect(statSync(join(instance, 'audit-key.pem')).mode & 0o777).toBe(0o600);
    await threeCalls();
    const json = await loom(['audit', 'verify', '--json', '--instance', instance]);
    expect(json.code, json.stderr).toBe(0);
    const result = json.json() as {
      ok: boolean;
      chains: { chain: string; publicKey: string; events: number }[];
    };
    expect(result.ok).toBe(true);
    const [chain] = result.chains;
    expect(result.chains).toHaveLength(1);
    expect(chain?.publicKey).toMatch(/^ed25519:[A-Za-z0-9_-]{43}$/);
    const text = await loom(['audit', 'verify', '--instance', instance]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(
      `verified ${chain?.events} event(s) of the store of ${instance}: no event was changed, removed, inserted or reordered\n` +
        `  checked against ${chain?.publicKey}, recorded in ${auditKeyRecordFile(instance, { XDG_CONFIG_HOME: TEST_CONFIG_HOME })}\n` +
        `  chain ${chain?.chain}: ${chain?.events} event(s), positions 1-${chain?.events}, signed through ${chain?.events}; key ${chain?.publicKey} (the key checked against)\n`,
    );
  });

  it('names a changed event on stdout and exits 1 [AUD-21]', async () => {
    await threeCalls();
    const db = new Database(join(instance, 'loom.db'));
    const [{ seq } = { seq: 0 }] = db
      .prepare("SELECT seq FROM audit WHERE command = 'text.echo' AND phase = 'run' ORDER BY seq LIMIT 1")
      .all() as { seq: number }[];
    db.prepare("UPDATE audit SET outcome = 'failed' WHERE seq = ?").run(seq);
    db.close();
    const r = await loom(['audit', 'verify', '--instance', instance]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe(
      `TAMPERED changed: event ${seq} was changed: its content no longer matches its hash`,
    );
  });

  it('exports a bundle (mode 0600) that verifies offline against the pinned key, and not against another [AUD-22]', async () => {
    await threeCalls();
    const key = (
      (await loom(['audit', 'verify', '--json', '--instance', instance])).json() as {
        chains: { publicKey: string }[];
      }
    ).chains[0]?.publicKey as string;
    const file = join(t.path, 'audit.jsonl');
    const exported = await loom([
      'audit',
      'export',
      '--format',
      'jsonl',
      '--out',
      file,
      '--instance',
      instance,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/^exported \d+ event\(s\) and \d+ checkpoint\(s\) to /);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[0] ?? '')).toMatchObject({
      type: 'header',
      format: 'loom-audit-export/1',
      publicKey: key,
    });
    const good = await loom(['audit', 'verify', '--from', file, '--public-key', key]);
    expect(good.code, good.stdout).toBe(0);
    expect(good.stdout).toMatch(new RegExp(`^verified \\d+ event\\(s\\) of ${file}: `));
    const other = await loom([
      'audit',
      'verify',
      '--from',
      file,
      '--public-key',
      'ed25519:11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
    ]);
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(
      /^TAMPERED export: the export is signed by ed25519:\S+ \(chain [0-9a-f]{16}\), not by a key you named with --public-key\n/,
    );
    // The same bundle on stdout.
    const stdout = await loom(['audit', 'export', '--format', 'jsonl', '--instance', instance]);
    expect(stdout.stdout.split('\n').at(-2)).toMatch(/^\{"type":"trailer",/);
  });

  it('refuses an export without --format jsonl, and a --from that is not an export [AUD-23]', async () => {
    const bare = await loom(['audit', 'export', '--instance', instance]);
    expect([bare.code, bare.stderr]).toEqual([
      2,
      'loom audit: audit export needs --format jsonl (the one format there is)\n',
    ]);
    const notExport = join(t.path, 'x.jsonl');
    writeFileSync(notExport, '{"hello":1}\n');
    const r = await loom(['audit', 'verify', '--from', notExport]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'this file is not an audit export (its first line is not a loom-audit-export/1 header); make one with `loom audit export --format jsonl`',
    );
  });
});

/** The user config the instances of these tests record their keys in (the bin's default in tests). */
const recordEnv = { XDG_CONFIG_HOME: TEST_CONFIG_HOME };

/**
 * What a same-user process holding the instance directory can do to its SQLite store: drop the
 * events `drop` names, chain the rest again from genesis, and sign fresh genesis and head
 * checkpoints with `audit-key.pem` — the instance's own key, or (`newKey`) one it wrote there first.
 */
function forge(dir: string, options: { drop?: (seq: number) => boolean; newKey?: boolean }): void {
  if (options.newKey === true) {
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'audit-key.pem'), privateKey.export({ format: 'pem', type: 'pkcs8' }), {
      mode: 0o600,
    });
  }
  const signer = readAuditSigner(dir);
  const db = new Database(join(dir, 'loom.db'));
  type Row = {
    seq: number;
    at: string;
    run: string;
    actor: string;
    job: string | null;
    command: string;
    action: string;
    phase: 'run';
    outcome: string;
    code: string;
    reason: string | null;
    payload: string;
  };
  const rows = db.prepare('SELECT * FROM audit WHERE chain IS NOT NULL ORDER BY seq').all() as Row[];
  db.transaction(() => {
    let prev = GENESIS;
    let n = 0;
    for (const r of rows) {
      if (options.drop?.(r.seq) === true) {
        db.prepare('DELETE FROM audit WHERE seq = ?').run(r.seq);
        continue;
      }
      n++;
      const { seq, payload, ...fields } = r;
      const hash = eventHash({ ...fields, payload: JSON.parse(payload), chain: signer.chain, n, prev });
      db.prepare('UPDATE audit SET chain = ?, chain_n = ?, prev = ?, hash = ? WHERE seq = ?').run(
        signer.chain,
        n,
        prev,
        hash,
        seq,
      );
      prev = hash;
    }
    db.prepare('DELETE FROM audit_checkpoints').run();
    db.prepare('DELETE FROM audit_heads').run();
    db.prepare('INSERT INTO audit_heads (chain, n, head) VALUES (?, ?, ?)').run(signer.chain, n, prev);
    for (const [at, head, kind] of [
      [0, GENESIS, 'genesis'],
      [n, prev, 'schedule'],
    ] as const) {
      const c = { chain: signer.chain, n: at, head, at: new Date().toISOString(), kind, removed: 0 };
      db.prepare(
        'INSERT INTO audit_checkpoints (chain, n, head, at, kind, removed, public_key, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(c.chain, c.n, c.head, c.at, c.kind, 0, signer.publicKey, signer.sign(checkpointText(c)));
    }
  })();
  db.close();
}

/** The `seq` of the second `text.echo` answer: the event a forger deletes. */
function secondCall(dir: string): number {
  const db = new Database(join(dir, 'loom.db'), { readonly: true });
  const rows = db
    .prepare("SELECT seq FROM audit WHERE command = 'text.echo' AND phase = 'run' ORDER BY seq")
    .all() as { seq: number }[];
  db.close();
  return rows[1]?.seq ?? -1;
}

describe('the record survives its key', () => {
  it('records the instance key at loom init in the user config, outside the instance, and verify checks against it [SEC-26]', async () => {
    const again = join(t.path, 'again');
    const made = await loom(['init', again, '--workspace', join(t.path, 'workspace.yaml')]);
    const recorded = readRecordedAuditKey(again, recordEnv);
    expect(recorded?.publicKey).toBe(readAuditSigner(again).publicKey);
    expect(made.stderr).toBe(`audit key ${recorded?.publicKey} recorded in ${recorded?.file}\n`);
    expect(recorded?.file.startsWith(join(TEST_CONFIG_HOME, 'harness', 'audit-keys'))).toBe(true);
    const text = readFileSync(recorded?.file ?? '', 'utf8');
    expect(text).toContain(`\n${recorded?.publicKey}\n-----BEGIN PUBLIC KEY-----\n`);
    const r = await loom(['audit', 'verify', '--instance', again]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout.split('\n')[1]).toBe(
      `  checked against ${recorded?.publicKey}, recorded in ${recorded?.file}`,
    );
    expect(r.stdout).not.toContain('WARNING');
  });

  it('fails a history re-signed with a replaced key against the recorded key and a kept copy of it [SEC-26]', async () => {
    await threeCalls();
    const recorded = readRecordedAuditKey(instance, recordEnv);
    const kept = join(t.path, 'kept.pub');
    copyFileSync(recorded?.file ?? '', kept);
    forge(instance, { newKey: true });
    const replaced = readAuditSigner(instance).publicKey;
    const r = await loom(['audit', 'verify', '--instance', instance]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe(
      `TAMPERED replaced_key: the instance's audit key ${replaced} (${join(instance, 'audit-key.pem')}) is not the key recorded in ${recorded?.file} (${recorded?.publicKey}): the key was replaced, and what it signed is not the history that key vouches for`,
    );
    const given = await loom(['audit', 'verify', '--instance', instance, '--public-key', kept]);
    expect(given.code).toBe(1);
    expect(given.stdout.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^TAMPERED replaced_key: .* is not a key given with --public-key \(/),
      `  checked against ${recorded?.publicKey}, given with --public-key ${kept}`,
    ]);
  });

  it('passes that replaced-key forgery with only the instance key, saying so in a warning (the attack is real) [SEC-26]', async () => {
    await threeCalls();
    forge(instance, { newKey: true });
    const replaced = readAuditSigner(instance).publicKey;
    const nothingRecorded = join(t.path, 'empty-config');
    const r = await loom(['audit', 'verify', '--instance', instance], {
      env: { XDG_CONFIG_HOME: nothingRecorded },
    });
    expect(r.code, r.stdout).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^verified \d+ event\(s\) of the store of /);
    expect(lines[1]).toBe(
      `  checked against ${replaced}, the instance's own key (${join(instance, 'audit-key.pem')})`,
    );
    expect(lines[2]).toMatch(/; key ed25519:\S+ \(the instance's own key\)$/);
    expect(lines.at(-1)).toBe(
      `WARNING: only the instance's own key was available (${join(instance, 'audit-key.pem')}): whoever can write the instance can replace that key and sign a whole new history with it; record it once you trust it (loom audit verify --record --instance ${instance}) or name a key you kept with --public-key`,
    );
  });

  it('passes events deleted and re-signed with audit-key.pem against any key, and fails them against an earlier export kept elsewhere [SEC-26]', async () => {
    await threeCalls();
    const exports = join(t.path, 'exports');
    mkdirSync(exports);
    const first = await loom(['audit', 'export', '--to', exports, '--instance', instance]);
    expect(first.code, first.stderr).toBe(0);
    const [earlier] = readdirSync(exports);
    expect(earlier).toMatch(/^loom-audit-\d{12}-[0-9a-f]{16}\.jsonl$/);
    const bytes = readFileSync(join(exports, earlier ?? ''));
    const dropped = secondCall(instance);
    forge(instance, { drop: (seq) => seq === dropped });
    // The key is the instance's own and the recorded one: the store alone cannot tell.
    const alone = await loom(['audit', 'verify', '--instance', instance]);
    expect(alone.code, alone.stdout).toBe(0);
    expect(alone.stdout).toMatch(/^verified \d+ event\(s\) of the store of /);
    // A later export of the forged history adds a file; the earlier one stays as it was.
    const later = await loom(['audit', 'export', '--to', exports, '--instance', instance]);
    expect(later.code, later.stderr).toBe(0);
    expect(readdirSync(exports).sort()).toHaveLength(2);
    expect(readFileSync(join(exports, earlier ?? ''))).toEqual(bytes);
    const r = await loom(['audit', 'verify', '--instance', instance, '--against', exports]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(
      /^TAMPERED diverged: event \d+, at position \d+ of chain [0-9a-f]{16}, is not the event the export of \S+ holds there \(hash [0-9a-f]{12}…, the store's [0-9a-f]{12}…\): the history was rewritten after that export$/,
    );
  });

  it('verifies a store against its own exports, and names what it compared [SEC-26]', async () => {
    await threeCalls();
    const exports = join(t.path, 'exports');
    mkdirSync(exports);
    await loom(['audit', 'export', '--to', exports, '--instance', instance]);
    const [file] = readdirSync(exports);
    const again = await loom(['audit', 'export', '--to', exports, '--instance', instance]);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe(
      `${join(exports, file ?? '')} already holds the record through event ${Number(file?.slice(11, 23))}: kept it, nothing new to export\n`,
    );
    expect(statSync(join(exports, file ?? '')).mode & 0o777).toBe(0o400);
    const r = await loom(['audit', 'verify', '--instance', instance, '--against', exports]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `\\n  the same history as the export ${join(exports, file ?? '')} of \\S+: \\d+ event\\(s\\)\\n$`,
      ),
    );
  });

  it('records the key of an instance that has none recorded with --record, once it verified [SEC-26]', async () => {
    const config = join(t.path, 'config');
    const env = { XDG_CONFIG_HOME: config };
    const r = await loom(['audit', 'verify', '--record', '--instance', instance], { env });
    expect(r.code, r.stdout).toBe(0);
    const recorded = readRecordedAuditKey(instance, env);
    expect(recorded?.publicKey).toBe(readAuditSigner(instance).publicKey);
    expect(r.stdout).toContain(`\n  recorded: ${recorded?.publicKey} in ${recorded?.file}\n`);
    const checked = await loom(['audit', 'verify', '--instance', instance], { env });
    expect(checked.stdout.split('\n')[1]).toBe(
      `  checked against ${recorded?.publicKey}, recorded in ${recorded?.file}`,
    );
  });

  it('says what is wrong with --to and --against, and warns when an export is checked against its own key [SEC-26]', async () => {
    const url = await loom(['audit', 'export', '--to', 'https://audit.example/drop', '--instance', instance]);
    expect([url.code, url.stderr]).toEqual([
      2,
      'loom audit: --to takes a directory, found the URL https://audit.example/drop; mount the place (sshfs, NFS) and name the directory, or pipe `loom audit export --format jsonl` to it\n',
    ]);
    const missing = join(t.path, 'nowhere');
    const notDir = await loom(['audit', 'export', '--to', missing, '--instance', instance]);
    expect(notDir.stderr).toBe(
      `loom audit: --to ${missing} is not a directory; create it (somewhere the instance's processes cannot write) and run again\n`,
    );
    const empty = join(t.path, 'empty');
    mkdirSync(empty);
    const none = await loom(['audit', 'verify', '--against', empty, '--instance', instance]);
    expect(none.stderr).toBe(
      `loom audit: --against ${empty} holds no export (loom-audit-*.jsonl); write one with loom audit export --to ${empty}\n`,
    );
    const file = join(t.path, 'audit.jsonl');
    await loom(['audit', 'export', '--format', 'jsonl', '--out', file, '--instance', instance]);
    const own = await loom(['audit', 'verify', '--from', file]);
    expect(own.code).toBe(0);
    expect(own.stdout.trim().split('\n').at(-1)).toBe(
      "WARNING: only the export's own key (its header) was available: a rewritten export signed with a new key also verifies; name the key you kept with --public-key",
    );
  });
});
