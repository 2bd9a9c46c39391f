// The run store's record of webhook bodies, on a real SQLite file: what makes a delivery a replay is
// (source, SHA-256 of the verified body), committed in the same transaction as the runs it starts.
// And runs.db files written by earlier versions, migrated in place when opened.
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../src/records';
import { type DeliveryToAccept, RunStore } from '../src/store';

let dir: ReturnType<typeof tempDir>;
const stores: RunStore[] = [];
beforeEach(() => {
  dir = tempDir('runner-store-');
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  dir.cleanup();
});

function open(): RunStore {
  const store = new RunStore(join(dir.path, 'runs.db'));
  stores.push(store);
  return store;
}

const AT = new Date('2026-09-22T05:10:00.000Z');
const DIGEST = 'a'.repeat(64);

function delivery(fields: Partial<DeliveryToAccept> = {}): DeliveryToAccept {
  return {
    source: 'gh',
    digest: DIGEST,
    delivery: 'd-1',
    eventId: 'd-1',
    eventFile: '/i/runner/events/gh/d-1.json',
    at: AT,
    since: new Date(AT.getTime() - 86_400_000),
    ...fields,
  };
}

const run = (id: string) => ({ id, harness: 'h', status: 'pending', trigger: 'webhook' }) as const;

describe('the record of accepted webhook bodies', () => {
  it('accepts one body once: a second acceptance, even through another store on the same runs.db, commits none of its runs', () => {
    const first = open();
    const second = open();
    expect(first.accept(delivery(), [run('r-1')])).toBe(true);
    expect(second.accept(delivery({ delivery: 'd-2', eventId: 'd-2' }), [run('r-2')])).toBe(false);
    expect(second.list().map((r) => r.id)).toEqual(['r-1']);
    expect(second.acceptedBody('gh', DIGEST, AT)).toMatchObject({ event_id: 'd-1', source: 'gh' });
    expect(second.deliveries().map((d) => [d.delivery, d.outcome])).toEqual([['d-1', 'accepted']]);
  });

  it('keeps one body per source: the same bytes from another source are another delivery', () => {
    const store = open();
    expect(store.accept(delivery(), [])).toBe(true);
    expect(store.accept(delivery({ source: 'gt' }), [])).toBe(true);
    expect(store.acceptedBody('gt', DIGEST, AT)?.source).toBe('gt');
  });

  it('records a replay with its delivery id, or none, beside the accepted one', () => {
    const store = open();
    store.accept(delivery(), []);
    store.recordDuplicate({ source: 'gh', digest: DIGEST, delivery: '../../etc/x', at: AT });
    store.recordDuplicate({ source: 'gh', digest: DIGEST, delivery: null, at: AT });
    expect(store.deliveries({ digest: DIGEST }).map((d) => [d.delivery, d.outcome])).toEqual([
      ['d-1', 'accepted'],
      ['../../etc/x', 'duplicate'],
      [null, 'duplicate'],
    ]);
  });

  it('does not count a body received before the window as accepted, and forgets it at the next acceptance', () => {
    const store = open();
    store.accept(delivery(), []);
    const later = new Date(AT.getTime() + 2 * 86_400_000);
    const since = new Date(later.getTime() - 86_400_000);
    expect(store.acceptedBody('gh', DIGEST, since)).toBeUndefined();
    expect(store.accept(delivery({ delivery: 'd-9', eventId: 'd-9', at: later, since }), [])).toBe(true);
    expect(store.deliveries().map((d) => d.delivery)).toEqual(['d-9']);
  });

  it('opens a runs.db written before body dedupe, leaving its id-keyed deliveries table unread', () => {
    const file = join(dir.path, 'runs.db');
    const old = new Database(file);
    old.exec(`CREATE TABLE deliveries (
      source TEXT NOT NULL, delivery TEXT NOT NULL, event_file TEXT NOT NULL, received_at TEXT NOT NULL,
      PRIMARY KEY (source, delivery));
      INSERT INTO deliveries VALUES ('gh', 'd-1', '/old.json', '2026-09-21T00:00:00.000Z');`);
    old.close();
    const store = open();
    expect(store.accept(delivery(), [run('r-1')])).toBe(true);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM deliveries').get()).toEqual({ n: 1 });
  });
});

/** The runs table as earlier versions created it: before `observation`, and with it. */
const OLD_RUNS = `CREATE TABLE runs (
  id TEXT PRIMARY KEY, harness TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, path TEXT,
  trigger TEXT NOT NULL, source TEXT, event_file TEXT, delivery TEXT,
  stdin_is_prompt INTEGER NOT NULL DEFAULT 0, exit_code INTEGER, signal TEXT,
  created_at TEXT NOT NULL, started_at TEXT, ended_at TEXT, duration_ms INTEGER, log_file TEXT, message TEXT
);`;
const OLD_SCHEMAS = {
  'before observation': OLD_RUNS,
  'with observation': `${OLD_RUNS}\nALTER TABLE runs ADD COLUMN observation TEXT;`,
};

/** Writes runs.db as an earlier version did: a webhook run, its replay by hand, and a scheduled run. */
function writeOldRunsDb(schema: string): string {
  const file = join(dir.path, 'runs.db');
  const old = new Database(file);
  old.exec(schema);
  const insert = old.prepare(
    `INSERT INTO runs (id, harness, status, trigger, source, event_file, delivery, stdin_is_prompt, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, '2026-09-21T00:00:00.000Z')`,
  );
  insert.run('r-hook', 'review', 'succeeded', 'webhook', 'webhook.gh', '/i/e/gh/d-1.json', 'stdin', 1);
  insert.run('r-replay', 'review', 'succeeded', 'manual', 'webhook.gt', '/i/e/gt/d-2.json', 'argv', 0);
  insert.run('r-cron', 'nightly', 'pending', 'schedule', null, null, null, 0);
  old.close();
  return file;
}

const fields = (r: RunRecord) => [r.id, r.source, r.delivery, r.prompt_delivery, r.stdin_is_prompt];

describe('a runs.db written before prompt_delivery and source ids', () => {
  it.each(Object.entries(OLD_SCHEMAS))(
    'migrates a file written %s in place: the mode moves to prompt_delivery, delivery is null, webhook.gh becomes gh',
    (_, schema) => {
      writeOldRunsDb(schema);
      const store = open();
      expect(store.list().map(fields)).toEqual([
        ['r-hook', 'gh', null, 'stdin', true],
        ['r-replay', 'gt', null, 'argv', false],
        ['r-cron', null, null, null, false],
      ]);
      expect(store.get('r-hook')?.observation).toBeNull();
    },
  );

  it('gives a migrated record the same fields, in the same order, as a record of a new file', () => {
    writeOldRunsDb(OLD_SCHEMAS['with observation']);
    const migrated = open();
    const fresh = new RunStore(join(dir.path, 'fresh.db'));
    stores.push(fresh);
    fresh.insert(run('r-new'));
    expect(Object.keys(migrated.get('r-hook') as RunRecord)).toEqual(
      Object.keys(fresh.get('r-new') as RunRecord),
    );
    expect(Object.keys(fresh.get('r-new') as RunRecord)).toEqual([
      'id',
      'harness',
      'status',
      'reason',
      'path',
      'trigger',
      'source',
      'delivery',
      'event_file',
      'prompt_delivery',
      'stdin_is_prompt',
      'exit_code',
      'signal',
      'created_at',
      'started_at',
      'ended_at',
      'duration_ms',
      'log_file',
      'message',
      'observation',
    ]);
  });

  it('migrates once: opening the file again, or from a second store, changes no row and keeps new ones', () => {
    writeOldRunsDb(OLD_SCHEMAS['before observation']);
    const first = open();
    first.insert({ ...run('r-new'), source: 'gh', delivery: 'd-9', prompt_delivery: 'file' });
    first.close();
    stores.splice(stores.indexOf(first), 1);
    const second = open();
    const third = open();
    const expected = [
      ['r-hook', 'gh', null, 'stdin', true],
      ['r-replay', 'gt', null, 'argv', false],
      ['r-cron', null, null, null, false],
      ['r-new', 'gh', 'd-9', 'file', false],
    ];
    expect(second.list().map(fields)).toEqual(expected);
    expect(third.list().map(fields)).toEqual(expected);
    const columns = (second.db.prepare('PRAGMA table_info(runs)').all() as { name: string }[]).map(
      (c) => c.name,
    );
    expect(columns.filter((c) => c.includes('delivery')).sort()).toEqual(['delivery', 'prompt_delivery']);
  });
});
