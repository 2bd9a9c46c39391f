// The store contract suite runs once per store: `describeStores(title, (kind) => …)` registers the
// block for SQLite (a new file per test) and for PostgreSQL (one schema per test file, emptied
// before each test; skipped with one line when the server does not answer, except under CI=true).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { initInstance } from '../src/instance';
import { openStoreTarget } from '../src/store/open';
import type { Store, StoreTarget } from '../src/store/types';
import { WORKSPACE_YAML } from './helpers';
import { adminClient, describePg, freshSchema, resetSchema } from './pg';

/** One store implementation, as the contract suite drives it. */
export interface StoreKind {
  readonly name: 'sqlite' | 'postgres';
  /** The target of a store as new: a new SQLite file, or this file's PostgreSQL schema emptied. */
  target(): StoreTarget;
  /** Opens a store on {@link target} (a new one each call for SQLite). */
  open(): Promise<Store>;
  /** A new instance directory (workspace: `WORKSPACE_YAML`) whose store is of this kind, as new. */
  instance(): Promise<{ root: string; instance: string; workspace: string }>;
  /** Raw SQL on the current store, `?` placeholders: what a test checks beneath the contract. */
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Makes every insert into `table` fail until the returned function is called. */
  failInserts(table: string): Promise<() => Promise<void>>;
}

function sqliteKind(): { kind: StoreKind; setup(): void; each(): void; teardown(): void } {
  let dir: ReturnType<typeof tempDir>;
  let file = '';
  let n = 0;
  const kind: StoreKind = {
    name: 'sqlite',
    target: () => ({ kind: 'sqlite', file }),
    open: () => openStoreTarget({ kind: 'sqlite', file }),
    async instance() {
      const root = join(dir.path, `i${n++}`);
      const workspace = `${root}-workspace.yaml`;
      writeFileSync(workspace, WORKSPACE_YAML);
      const instance = join(root, 'instance');
      await initInstance(instance, workspace);
      file = join(instance, 'loom.db');
      return { root, instance, workspace };
    },
    async sql(text, params = []) {
      const db = new Database(file);
      try {
        const st = db.prepare(text);
        if (st.reader) return st.all(...params) as Record<string, unknown>[];
        st.run(...params);
        return [];
      } finally {
        db.close();
      }
    },
    async failInserts(table) {
      await kind.sql(`CREATE TRIGGER boom BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'boom'); END`);
      return async () => {
        await kind.sql('DROP TRIGGER boom');
      };
    },
  };
  return {
    kind,
    setup: () => {
      dir = tempDir('host-store-');
    },
    each: () => {
      file = join(dir.path, `store-${n++}.db`);
    },
    teardown: () => dir.cleanup(),
  };
}

function postgresKind(label: string): {
  kind: StoreKind;
  setup(): Promise<void>;
  each(): Promise<void>;
  teardown(): Promise<void>;
} {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let dir: ReturnType<typeof tempDir>;
  let n = 0;
  const kind: StoreKind = {
    name: 'postgres',
    target: () => schema.target,
    open: () => openStoreTarget(schema.target),
    async instance() {
      const root = join(dir.path, `i${n++}`);
      const workspace = `${root}-workspace.yaml`;
      writeFileSync(workspace, WORKSPACE_YAML);
      const instance = join(root, 'instance');
      await initInstance(instance, workspace, { store: schema.target });
      return { root, instance, workspace };
    },
    async sql(text, params = []) {
      const admin = await adminClient(schema.target.schema);
      try {
        let i = 0;
        return (
          await admin.query(
            text.replace(/\?/g, () => `$${++i}`),
            params,
          )
        ).rows;
      } finally {
        await admin.end();
      }
    },
    async failInserts(table) {
      await kind.sql(
        `CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$;
         CREATE TRIGGER boom BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION boom()`,
      );
      return async () => {
        await kind.sql(`DROP TRIGGER boom ON ${table}; DROP FUNCTION boom()`);
      };
    },
  };
  return {
    kind,
    async setup() {
      dir = tempDir('host-pg-');
      schema = await freshSchema(label);
    },
    each: () => resetSchema(schema.target.schema),
    async teardown() {
      dir?.cleanup();
      await schema?.drop();
    },
  };
}

/**
 * Registers `body` once per store, as `<title> (sqlite)` and `<title> (postgres)`; each test
 * starts from an empty store.
 */
export function describeStores(title: string, body: (kind: StoreKind) => void): void {
  const sqlite = sqliteKind();
  describe(`${title} (sqlite)`, () => {
    beforeAll(sqlite.setup);
    beforeEach(sqlite.each);
    afterAll(sqlite.teardown);
    body(sqlite.kind);
  });
  const postgres = postgresKind(title);
  describePg(`${title} (postgres)`, () => {
    beforeAll(postgres.setup);
    beforeEach(postgres.each);
    afterAll(postgres.teardown);
    body(postgres.kind);
  });
}
