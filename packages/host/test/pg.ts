// PostgreSQL for tests: whether the server answers, a schema of its own per test file, raw SQL.
// The server is 127.0.0.1:5432 (trust authentication, database `test`) unless PGHOST, PGPORT,
// PGDATABASE or PGUSER say otherwise.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import pg from 'pg';
import { describe } from 'vitest';
import { migrateStoreTarget } from '../src/store/open';
import { postgresTargetFromEnv } from '../src/store/postgres/target';
import type { PostgresTarget } from '../src/store/types';

const env = {
  PGHOST: process.env.PGHOST || '127.0.0.1',
  PGPORT: process.env.PGPORT || '5432',
  PGDATABASE: process.env.PGDATABASE || 'test',
  PGUSER: process.env.PGUSER || 'postgres',
};

/** Where the tests' server is, with a placeholder schema. */
export const PG_SERVER = postgresTargetFromEnv({ env, schema: 'loom' });

/** The one line a skipped PostgreSQL test file shows. */
export const PG_SKIP = `PostgreSQL tests skipped: nothing answers on ${PG_SERVER.host}:${PG_SERVER.port}; start it (pg_ctlcluster 15 main start, see docs/host.md, "Several hosts") and run them again; under CI=true they run and fail`;

function answers(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: PG_SERVER.host, port: PG_SERVER.port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1_000, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** True when the tests' PostgreSQL server takes connections. */
export const pgAnswers = await answers();

/** True when the PostgreSQL tests run: the server answers, or CI requires them (then they fail). */
export const pgRuns = pgAnswers || process.env.CI === 'true';

let told = false;
/** `describe` for tests that need PostgreSQL: skipped, with {@link PG_SKIP}, when it does not answer. */
export function describePg(title: string, body: () => void): void {
  if (pgRuns) {
    describe(title, body);
    return;
  }
  if (!told) process.stderr.write(`${PG_SKIP}\n`);
  told = true;
  describe.skip(`${title} (${PG_SKIP})`, body);
}

/** A client of the tests' database (trust authentication), for raw SQL. */
export async function adminClient(schema?: string): Promise<pg.Client> {
  const client = new pg.Client({
    host: PG_SERVER.host,
    port: PG_SERVER.port,
    database: PG_SERVER.database,
    user: PG_SERVER.user,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  await client.connect();
  return client;
}

/** A fresh schema, migrated, named uniquely for one test file; `drop()` removes it. */
export async function freshSchema(label: string): Promise<{ target: PostgresTarget; drop(): Promise<void> }> {
  const schema = `t_${label.replace(/[^a-z0-9_]/g, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  const target: PostgresTarget = { ...PG_SERVER, schema };
  await migrateStoreTarget(target);
  return {
    target,
    async drop() {
      const admin = await adminClient();
      try {
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** Empties every table of a schema and restarts its sequences: a store as new, in the same schema. */
export async function resetSchema(schema: string): Promise<void> {
  const admin = await adminClient(schema);
  try {
    await admin.query(
      "TRUNCATE looms, components, operations, receipts, audit, approvals RESTART IDENTITY CASCADE; UPDATE audit_clock SET at = ''",
    );
  } finally {
    await admin.end();
  }
}
