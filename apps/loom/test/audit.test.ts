// `loom audit verify` and `loom audit export` on a real instance (docs/audit.md): the instance's key
// made by `loom init`, a broker's events chained and checkpointed at its shutdown, a bundle that
// verifies offline, and a changed event named on stdout.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BrokerProcess, killBrokers, loom, startBrokerProcess } from './cli';

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
        `  chain ${chain?.chain}: ${chain?.events} event(s), positions 1-${chain?.events}, signed through ${chain?.events}; key ${chain?.publicKey} (pinned)\n`,
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
