// The store contract beyond looms: the filtered, paged audit query, what an approval records, the
// looms a console lists — for both stores — and the migration of a SQLite file written by an older
// version. Real SQLite files and a real PostgreSQL schema.
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreError } from '../src/errors';
import { openSqliteStore } from '../src/sqlite/index';
import { SQLITE_SCHEMA_VERSION } from '../src/sqlite/schema';
import type { Store } from '../src/types';
import { auditEvent } from './inputs';
import { describeStores } from './stores';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('host-store-');
});
afterEach(() => dir.cleanup());

const event = auditEvent;

describeStores('queryAudit', (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await kind.open();
    // seq 1..12: agents me/you alternate, every third call refused, commands echo/touch by half.
    for (let i = 1; i <= 12; i++) {
      await store.appendAudit(
        event({
          actor: i % 2 === 0 ? 'agent:you' : 'agent:me',
          command: i <= 6 ? 'text.echo' : 'text.touch',
          outcome: i % 3 === 0 ? 'refused' : 'ok',
          payload: { i },
        }),
      );
    }
  });
  afterEach(() => store.close());

  const seqs = (page: { events: { seq: number }[] }) => page.events.map((e) => e.seq);

  it('without a cursor gives the newest matching events, oldest first, with the older cursor', async () => {
    const page = await store.queryAudit({ limit: 4 });
    expect(seqs(page)).toEqual([9, 10, 11, 12]);
    expect(page.older).toBe(9);
    expect(page.newer).toBeNull();
  });

  it('pages back with before and forward with after, over the same filter', async () => {
    const me = { actor: 'agent:me' };
    const newest = await store.queryAudit({ ...me, limit: 2 });
    expect(seqs(newest)).toEqual([9, 11]);
    const older = await store.queryAudit({ ...me, limit: 2, before: newest.older ?? 0 });
    expect(seqs(older)).toEqual([5, 7]);
    expect([older.older, older.newer]).toEqual([5, 7]);
    const oldest = await store.queryAudit({ ...me, limit: 2, before: older.older ?? 0 });
    expect(seqs(oldest)).toEqual([1, 3]);
    expect([oldest.older, oldest.newer]).toEqual([null, 3]);
    const forward = await store.queryAudit({ ...me, limit: 2, after: 3 });
    expect(seqs(forward)).toEqual([5, 7]);
    expect([forward.older, forward.newer]).toEqual([5, 7]);
    const end = await store.queryAudit({ ...me, limit: 10, after: 7 });
    expect(seqs(end)).toEqual([9, 11]);
    expect(end.newer).toBeNull();
  });

  it('combines the actor, command and outcome filters with AND', async () => {
    const page = await store.queryAudit({ actor: 'agent:you', command: 'text.touch', outcome: 'refused' });
    expect(page.events.map((e) => [e.seq, e.actor, e.command, e.outcome])).toEqual([
      [12, 'agent:you', 'text.touch', 'refused'],
    ]);
    expect(seqs(await store.queryAudit({ outcome: 'refused' }))).toEqual([3, 6, 9, 12]);
    expect(seqs(await store.queryAudit({ command: 'nope' }))).toEqual([]);
  });

  it('bounds by time: since is inclusive, until exclusive', async () => {
    const all = (await store.queryAudit({})).events;
    const at = all[4]?.at ?? '';
    const since = (await store.queryAudit({ since: at })).events;
    expect(since.every((e) => e.at >= at)).toBe(true);
    expect(since.map((e) => e.seq)).toContain(5);
    const until = (await store.queryAudit({ until: at })).events;
    expect(until.every((e) => e.at < at)).toBe(true);
    expect(since.length + until.length).toBe(12);
  });

  it('keeps at from going backwards when the clock steps back, so a time bound stays exact', async () => {
    const last = (await store.queryAudit({ limit: 1 })).events[0]?.at ?? '';
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date(Date.parse(last) - 3_600_000));
      await store.appendAudit(event({ command: 'late' }));
    } finally {
      vi.useRealTimers();
    }
    const [late] = (await store.queryAudit({ command: 'late' })).events;
    expect(late?.at).toBe(last);
    expect((await store.queryAudit({ since: last })).events.map((e) => e.command)).toContain('late');
  });

  it('records an event whose text holds NUL with U+FFFD in its place, and its payload as given', async () => {
    await store.appendAudit(event({ command: 'evil\u0000cmd', job: 'j\u0000', payload: { v: 'a\u0000b' } }));
    const [e] = (await store.queryAudit({ limit: 1 })).events;
    expect(e).toMatchObject({ command: 'evil\ufffdcmd', job: 'j\ufffd', payload: { v: 'a\u0000b' } });
    expect((await store.queryAudit({ command: 'evil\ufffdcmd' })).events).toHaveLength(1);
  });

  it('returns each event whole, payload parsed', async () => {
    const [e] = (await store.queryAudit({ after: 1, limit: 1 })).events;
    expect(e).toMatchObject({ seq: 2, run: 'r1', actor: 'agent:you', phase: 'run', payload: { i: 2 } });
  });
});

describeStores('approvals record what a person judges', (kind) => {
  it('stores the argument values, the rendered argv and the tier with the request', async () => {
    const store = await kind.open();
    try {
      const rec = await store.requestApproval({
        key: 'k',
        command: 'text.touch',
        agent: 'editor',
        run: 'run-7',
        action: 'command:call:text:touch',
        reason: 'strict tier',
        argNames: ['file'],
        args: { file: '../../escape.txt' },
        argv: ['touch', '--', '../../escape.txt'],
        tier: 'strict',
        ttlMs: 60_000,
      });
      const [listed] = await store.listApprovals();
      expect(listed).toEqual(rec);
      expect(listed).toMatchObject({
        args: { file: '../../escape.txt' },
        argv: ['touch', '--', '../../escape.txt'],
        tier: 'strict',
        agent: 'editor',
        run: 'run-7',
      });
    } finally {
      await store.close();
    }
  });
});

describeStores('approvals keep the display line and the preview a person reads', (kind) => {
  it('stores the display line and the preview output with the request, and reads them back', async () => {
    const store = await kind.open();
    try {
      const preview = { command: 'git.staged_diff', ok: true, text: ' a.txt | 1 +\n', truncated: false };
      const rec = await store.requestApproval({
        key: 'k-display',
        command: 'git.commit',
        agent: 'editor',
        run: 'run-7',
        action: 'command:call:git:commit',
        reason: 'cautious tier',
        argNames: ['message'],
        args: { message: 'Fix it' },
        argv: ['git', 'commit', '--message=Fix it'],
        tier: 'cautious',
        display: 'git commit --message "Fix it"',
        preview,
        ttlMs: 60_000,
      });
      expect(rec).toMatchObject({ display: 'git commit --message "Fix it"', preview });
      expect(await store.getApproval(rec.id)).toMatchObject({
        display: 'git commit --message "Fix it"',
        preview,
      });
      const plain = await store.requestApproval({
        key: 'k-plain',
        command: 'text.touch',
        agent: 'editor',
        run: 'run-7',
        action: 'command:call:text:touch',
        reason: 'strict tier',
        argNames: [],
        args: {},
        argv: ['touch'],
        tier: 'strict',
        ttlMs: 60_000,
      });
      expect(await store.getApproval(plain.id)).toMatchObject({ display: null, preview: null });
    } finally {
      await store.close();
    }
  });
});

describeStores("a person's decision is an audit event", (kind) => {
  const request = (store: Store, key: string) =>
    store.requestApproval({
      key,
      command: 'text.touch',
      agent: 'editor',
      run: 'run-7',
      action: 'command:call:text:touch',
      reason: 'strict tier',
      argNames: ['file'],
      args: { file: 'a.txt' },
      argv: ['touch', '--', 'a.txt'],
      tier: 'strict',
      ttlMs: 60_000,
    });

  it('records who decided, the command decided on and the decision, without the argument values', async () => {
    const store = await kind.open();
    try {
      const approved = await request(store, 'k-approve');
      const denied = await request(store, 'k-deny');
      await store.decideApproval(approved.id, 'approved', 'person:ann', 60_000);
      await store.decideApproval(denied.id, 'denied', 'elicitation:some-client', 60_000);
      const events = (await store.queryAudit({})).events;
      expect(events.map((e) => [e.phase, e.actor, e.command, e.action, e.outcome, e.code, e.run])).toEqual([
        ['approval', 'person:ann', 'text.touch', 'approval:decide', 'approved', 'ok', 'run-7'],
        ['approval', 'elicitation:some-client', 'text.touch', 'approval:decide', 'denied', 'ok', 'run-7'],
      ]);
      expect(events[0]?.payload).toEqual({
        approvalId: approved.id,
        agent: 'editor',
        arg_names: ['file'],
        tier: 'strict',
        expires_at: (await store.getApproval(approved.id))?.expires_at,
      });
      expect(JSON.stringify(events)).not.toContain('a.txt');
    } finally {
      await store.close();
    }
  });

  it('leaves the approval pending when its audit event cannot be written', async () => {
    const store = await kind.open();
    try {
      const held = await request(store, 'k-fail');
      const restore = await kind.failInserts('audit');
      await expect(store.decideApproval(held.id, 'approved', 'person:ann', 60_000)).rejects.toThrow();
      await restore();
      expect((await store.getApproval(held.id))?.status).toBe('pending');
      expect((await store.queryAudit({})).events).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

// The version 1 schema exactly as it shipped, with one approval and one audit row in it.
const V1 = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE looms (id TEXT PRIMARY KEY, version INTEGER NOT NULL, focus TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, created_by TEXT NOT NULL, run TEXT NOT NULL);
CREATE TABLE components (id TEXT PRIMARY KEY, loom_id TEXT NOT NULL REFERENCES looms(id), position INTEGER NOT NULL, ref TEXT NOT NULL, title TEXT, stage TEXT, placed_seq INTEGER NOT NULL, added_version INTEGER NOT NULL, added_by TEXT NOT NULL);
CREATE INDEX components_loom ON components(loom_id, position);
CREATE TABLE operations (id TEXT PRIMARY KEY, loom_id TEXT NOT NULL REFERENCES looms(id), version INTEGER NOT NULL, kind TEXT NOT NULL, component_id TEXT, namespace TEXT NOT NULL, request_id TEXT NOT NULL);
CREATE TABLE receipts (seq INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, request_id TEXT NOT NULL, args_hash TEXT NOT NULL, loom_id TEXT NOT NULL, version INTEGER NOT NULL, created INTEGER NOT NULL, component_ids TEXT NOT NULL, operation_ids TEXT NOT NULL, displaced TEXT NOT NULL, committed_at TEXT NOT NULL, UNIQUE (namespace, request_id));
CREATE TABLE audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, run TEXT NOT NULL, actor TEXT NOT NULL, job TEXT, command TEXT NOT NULL, action TEXT NOT NULL, phase TEXT NOT NULL, outcome TEXT NOT NULL, code TEXT NOT NULL, reason TEXT, payload TEXT NOT NULL);
CREATE TABLE approvals (id TEXT PRIMARY KEY, key TEXT NOT NULL, command TEXT NOT NULL, agent TEXT NOT NULL, run TEXT NOT NULL, action TEXT NOT NULL, reason TEXT NOT NULL, arg_names TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, expires_at TEXT NOT NULL, decided_at TEXT, decided_by TEXT, consumed_at TEXT);
CREATE INDEX approvals_key ON approvals(key, status);
INSERT INTO meta VALUES ('schema', '1');
INSERT INTO approvals VALUES ('apr_old', 'k-old', 'text.touch', 'editor', 'run-1', 'command:call:text:touch', 'strict tier', '["file"]', 'pending', '2030-01-01T00:00:00.000Z', '2030-01-01T01:00:00.000Z', NULL, NULL, NULL);
INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload) VALUES ('2030-01-01T00:00:00.000Z', 'run-1', 'agent:editor', NULL, 'text.touch', 'command:call:text:touch', 'run', 'refused', 'refused', 'approval_required', '{"arg_names":["file"]}');
`;

describe('migration of a SQLite store written by an older version', () => {
  it('opens a version 1 file, keeps its rows, and reads and writes the new fields', async () => {
    const file = join(dir.path, 'loom.db');
    const old = new Database(file);
    old.exec(V1);
    old.close();

    const store = openSqliteStore(file);
    try {
      const now = new Date('2030-01-01T00:10:00Z');
      const [kept] = await store.listApprovals({ now });
      expect(kept).toMatchObject({ id: 'apr_old', arg_names: ['file'], args: null, argv: null, tier: null });
      const page = await store.queryAudit({ actor: 'agent:editor' });
      expect(page.events.map((e) => [e.seq, e.reason])).toEqual([[1, 'approval_required']]);
      const fresh = await store.requestApproval({
        key: 'k-new',
        command: 'text.touch',
        agent: 'editor',
        run: 'run-2',
        action: 'command:call:text:touch',
        reason: 'strict tier',
        argNames: ['file'],
        args: { file: 'new.txt' },
        argv: ['touch', '--', 'new.txt'],
        tier: 'strict',
        ttlMs: 60_000,
        now,
      });
      expect(await store.getApproval(fresh.id)).toMatchObject({ args: { file: 'new.txt' }, tier: 'strict' });
    } finally {
      await store.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema'").get()).toEqual({
        value: String(SQLITE_SCHEMA_VERSION),
      });
      const indexes = db
        .prepare<[], { name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit'",
        )
        .all()
        .map((r) => r.name);
      expect(indexes).toEqual(
        expect.arrayContaining(['audit_actor', 'audit_command', 'audit_outcome', 'audit_at']),
      );
    } finally {
      db.close();
    }
    // A second open finds it current and changes nothing.
    const again = openSqliteStore(file);
    expect((await again.listApprovals({ status: 'all', now: new Date('2030-01-01T00:10:00Z') })).length).toBe(
      2,
    );
    await again.close();
  });

  it('brings a version 6 file to 7: its sightings keep their rows, without a definition, last seen when first seen [SV-18]', async () => {
    const file = join(dir.path, 'loom.db');
    await openSqliteStore(file).close();
    // The file as version 6 left it: tool_sightings without definition and last_seen, one row.
    const old = new Database(file);
    old.exec(`DROP TABLE tool_sightings;
      CREATE TABLE tool_sightings (
        server TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, first_seen TEXT NOT NULL,
        rejected_at TEXT, rejected_by TEXT, PRIMARY KEY (server, tool, hash)
      );
      INSERT INTO tool_sightings VALUES ('gh', 'get', '${'a'.repeat(64)}', '2026-01-01T00:00:00.000Z', NULL, NULL);
      UPDATE meta SET value = '6' WHERE key = 'schema';`);
    old.close();
    const store = openSqliteStore(file);
    try {
      expect(await store.listToolSightings('gh')).toEqual([
        {
          server: 'gh',
          tool: 'get',
          hash: 'a'.repeat(64),
          definition: null,
          first_seen: '2026-01-01T00:00:00.000Z',
          last_seen: '2026-01-01T00:00:00.000Z',
          rejected_at: null,
          rejected_by: null,
        },
      ]);
      // Listed again, it gets its definition.
      const again = await store.sightTool({
        server: 'gh',
        tool: 'get',
        hash: 'a'.repeat(64),
        definition: '{"name":"get"}',
        now: new Date('2026-02-01T00:00:00.000Z'),
      });
      expect(again).toMatchObject({
        definition: '{"name":"get"}',
        last_seen: '2026-02-01T00:00:00.000Z',
        inserted: false,
      });
    } finally {
      await store.close();
    }
    expect(SQLITE_SCHEMA_VERSION).toBe(7);
  });

  it('refuses a file written by a newer version, naming both versions', () => {
    const file = join(dir.path, 'loom.db');
    const db = new Database(file);
    db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema', '99');",
    );
    db.close();
    let thrown: unknown;
    try {
      openSqliteStore(file);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StoreError);
    expect((thrown as StoreError).message).toBe(
      `the store at ${file} has schema version 99, and this version of the host reads 1 to ${SQLITE_SCHEMA_VERSION}; use the newer host that wrote it`,
    );
  });
});

describeStores('the looms of a store, for a console', (kind) => {
  const compose = (
    store: Store,
    over: { namespace: string; requestId: string; loomId?: string; refs: string[] },
  ) =>
    store.compose({
      namespace: over.namespace,
      actor: 'agent:me',
      run: 'r1',
      requestId: over.requestId,
      ...(over.loomId === undefined ? {} : { loomId: over.loomId }),
      components: over.refs.map((ref) => ({ ref })),
      argsHash: `h-${over.namespace}-${over.requestId}`,
    });

  it('lists every loom, most recently changed first, with its version and component count', async () => {
    const store = await kind.open();
    try {
      const a = await compose(store, { namespace: 'n1', requestId: 'a', refs: ['page:a'] });
      const b = await compose(store, { namespace: 'n2', requestId: 'b', refs: ['page:b', 'page:c'] });
      if (a.kind !== 'committed' || b.kind !== 'committed') throw new Error('compose did not commit');
      // The order is by time of change: the later change is made a few ms later on purpose.
      await new Promise((r) => setTimeout(r, 5));
      await compose(store, { namespace: 'n2', requestId: 'a2', loomId: a.receipt.loom_id, refs: ['page:d'] });
      const list = await store.listLooms(10);
      expect(list.map((l) => [l.loom_id, l.version, l.components])).toEqual([
        [a.receipt.loom_id, 2, 2],
        [b.receipt.loom_id, 1, 2],
      ]);
      expect(await store.listLooms(1)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it("gives one loom's receipts across namespaces, newest first: its versions", async () => {
    const store = await kind.open();
    try {
      const a = await compose(store, { namespace: 'n1', requestId: 'a', refs: ['page:a'] });
      if (a.kind !== 'committed') throw new Error('compose did not commit');
      await compose(store, { namespace: 'n2', requestId: 'x', loomId: a.receipt.loom_id, refs: ['page:b'] });
      await compose(store, { namespace: 'n3', requestId: 'other', refs: ['page:z'] });
      const receipts = await store.loomReceipts(a.receipt.loom_id, 10);
      expect(receipts.map((r) => [r.request_id, r.version, r.created])).toEqual([
        ['x', 2, false],
        ['a', 1, true],
      ]);
    } finally {
      await store.close();
    }
  });
});
