// The store contract suite's harness, for every package whose tests drive a store:
// `storeSuite(backend).describeStores(title, (kind) => …)` registers the block for SQLite (a new file
// per test) and for PostgreSQL (one schema per test file, emptied before each test; skipped with one
// line when the server does not answer, except under CI=true). It imports no store: the package
// under test hands it the store's own `open` and `migrate`, so `@harness/store` can use it too.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { tempDir } from './index';
import { describePg, dropSchema, PG_TEST_ENV, pgClient, pgQuery, uniqueSchema } from './pg';

/** An SQLite store's target, as `@harness/store` spells it. */
export interface SqliteTestTarget {
  kind: 'sqlite';
  file: string;
}

/** A PostgreSQL store's target, as `@harness/store` spells it. */
export interface PgTestTarget {
  kind: 'postgres';
  host: string;
  port: number;
  database: string;
  user: string;
  schema: string;
}

/** What the suite needs of a store implementation: opening a target, migrating a PostgreSQL one. */
export interface StoreBackend<S> {
  open(target: SqliteTestTarget | PgTestTarget): Promise<S>;
  migrate(target: PgTestTarget): Promise<unknown>;
}

/** One store implementation, as the contract suite drives it. */
export interface StoreKind<S> {
  readonly name: 'sqlite' | 'postgres';
  /** The target of a store as new: a new SQLite file, or this file's PostgreSQL schema emptied. */
  target(): SqliteTestTarget | PgTestTarget;
  /** Opens a store on {@link target} (the same file or schema on every call within a test). */
  open(): Promise<S>;
  /** Raw SQL on the current store, `?` placeholders: what a test checks beneath the contract. */
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Makes every insert into `table` fail until the returned function is called. */
  failInserts(table: string): Promise<() => Promise<void>>;
}

/** The tests' server, with a placeholder schema. */
export const PG_SERVER: PgTestTarget = {
  kind: 'postgres',
  host: PG_TEST_ENV.PGHOST,
  port: Number(PG_TEST_ENV.PGPORT),
  database: PG_TEST_ENV.PGDATABASE,
  user: PG_TEST_ENV.PGUSER,
  schema: 'loom',
};

/** Empties every table of a store's schema and restarts its sequences: a store as new, in the same schema. */
export async function resetSchema(schema: string): Promise<void> {
  await pgQuery(
    "TRUNCATE looms, components, operations, receipts, audit, approvals, approval_notices, tool_pins, tool_sightings RESTART IDENTITY CASCADE; UPDATE audit_clock SET at = ''",
    [],
    schema,
  );
}

function sqliteKind<S>(backend: StoreBackend<S>): {
  kind: StoreKind<S>;
  setup(): void;
  each(): void;
  teardown(): void;
} {
  let dir: ReturnType<typeof tempDir>;
  let file = '';
  let n = 0;
  const kind: StoreKind<S> = {
    name: 'sqlite',
    target: () => ({ kind: 'sqlite', file }),
    open: () => backend.open({ kind: 'sqlite', file }),
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
      dir = tempDir('store-');
    },
    each: () => {
      file = join(dir.path, `store-${n++}.db`);
    },
    teardown: () => dir.cleanup(),
  };
}

function postgresKind<S>(
  backend: StoreBackend<S>,
  fresh: (label: string) => Promise<{ target: PgTestTarget; drop(): Promise<void> }>,
  label: string,
): { kind: StoreKind<S>; setup(): Promise<void>; each(): Promise<void>; teardown(): Promise<void> } {
  let schema: { target: PgTestTarget; drop(): Promise<void> } | undefined;
  const target = (): PgTestTarget => {
    if (schema === undefined) throw new Error('the PostgreSQL schema of this test file is not set up');
    return schema.target;
  };
  const kind: StoreKind<S> = {
    name: 'postgres',
    target,
    open: () => backend.open(target()),
    async sql(text, params = []) {
      const admin = await pgClient(target().schema);
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
      schema = await fresh(label);
    },
    each: () => resetSchema(target().schema),
    async teardown() {
      await schema?.drop();
    },
  };
}

/** The contract suite over one store implementation. */
export interface StoreSuite<S> {
  /**
   * Registers `body` once per store, as `<title> (sqlite)` and `<title> (postgres)`; each test
   * starts from an empty store.
   */
  describeStores(title: string, body: (kind: StoreKind<S>) => void): void;
  /** A fresh schema, migrated, named uniquely for one test file; `drop()` removes it. */
  freshSchema(label: string): Promise<{ target: PgTestTarget; drop(): Promise<void> }>;
}

/** The contract suite over the store `backend` opens. */
export function storeSuite<S>(backend: StoreBackend<S>): StoreSuite<S> {
  const freshSchema = async (label: string) => {
    const target: PgTestTarget = { ...PG_SERVER, schema: uniqueSchema(label) };
    await backend.migrate(target);
    return { target, drop: () => dropSchema(target.schema) };
  };
  return {
    freshSchema,
    describeStores(title, body) {
      const sqlite = sqliteKind(backend);
      describe(`${title} (sqlite)`, () => {
        beforeAll(sqlite.setup);
        beforeEach(sqlite.each);
        afterAll(sqlite.teardown);
        body(sqlite.kind);
      });
      const postgres = postgresKind(backend, freshSchema, title);
      describePg(`${title} (postgres)`, () => {
        beforeAll(postgres.setup);
        beforeEach(postgres.each);
        afterAll(postgres.teardown);
        body(postgres.kind);
      });
    },
  };
}
