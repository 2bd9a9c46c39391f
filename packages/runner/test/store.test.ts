// The run store's record of webhook bodies, on a real SQLite file: what makes a delivery a replay is
// (source, SHA-256 of the verified body), committed in the same transaction as the runs it starts.
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
