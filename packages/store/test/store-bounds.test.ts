// What a long-lived SQLite store holds: the write-ahead log stays near its limit under steady writes
// and is cut back after a burst, and each connection's page cache is bounded. Real SQLite files.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/sqlite/index';
import { openDatabase, STORE_CACHE_KIB } from '../src/sqlite/schema';
import { auditEvent } from './inputs';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('host-store-bounds-');
});
afterEach(() => dir.cleanup());

const event = (payload: Record<string, unknown>) => auditEvent({ payload });

describe('what a long-lived store holds', () => {
  it('keeps the write-ahead log near 4 MiB under steady writes, however much is written', async () => {
    const file = join(dir.path, 'loom.db');
    const store = openSqliteStore(file);
    try {
      // 3 000 events of 4 KiB each: about 12 MiB written, one transaction per event.
      const payload = { text: 'x'.repeat(4096) };
      let walMax = 0;
      for (let i = 0; i < 3000; i++) {
        await store.appendAudit(event(payload));
        if (i % 100 === 99) walMax = Math.max(walMax, statSync(`${file}-wal`).size);
      }
      expect(statSync(file).size).toBeGreaterThan(8 * 1024 * 1024);
      // The log is checkpointed every 1000 pages (4 MiB) and cut back to 4 MiB after each checkpoint.
      expect(walMax).toBeLessThanOrEqual(4.5 * 1024 * 1024);
    } finally {
      await store.close();
    }
  });

  it('cuts a log grown by a burst back to 4 MiB once a checkpoint can complete', async () => {
    const file = join(dir.path, 'loom.db');
    const store = openSqliteStore(file);
    // A reader that holds its snapshot keeps every checkpoint from resetting the log, so it grows.
    const reader = new Database(file, { readonly: true });
    try {
      reader.prepare('BEGIN').run();
      reader.prepare('SELECT count(*) FROM audit').get();
      const payload = { text: 'x'.repeat(4096) };
      for (let i = 0; i < 2000; i++) await store.appendAudit(event(payload));
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(8 * 1024 * 1024);
      reader.prepare('COMMIT').run();
      for (let i = 0; i < 1200; i++) await store.appendAudit(event(payload));
      expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(4.5 * 1024 * 1024);
    } finally {
      reader.close();
      await store.close();
    }
  });

  it('gives each connection a page cache of 4 MiB, not the 16 MiB the driver builds in', () => {
    const file = join(dir.path, 'loom.db');
    for (const readonly of [false, true]) {
      const db = openDatabase(file, { readonly });
      try {
        expect(db.pragma('cache_size', { simple: true })).toBe(-STORE_CACHE_KIB);
        expect(STORE_CACHE_KIB).toBe(4096);
      } finally {
        db.close();
      }
    }
  });
});
