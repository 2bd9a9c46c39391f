// PostgreSQL for tests of every package: whether the server answers (tests skip with one line when
// it does not, and fail saying so under CI=true), a libpq environment naming it, raw SQL. The
// server is 127.0.0.1:5432 (trust authentication, database `test`, user `postgres`) unless PGHOST,
// PGPORT, PGDATABASE or PGUSER say otherwise.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import pg from 'pg';
import { needs, type Requirement } from './needs';

/** The libpq environment of the tests' server (what `loom init --store postgres` reads). */
export const PG_TEST_ENV = {
  PGHOST: process.env.PGHOST || '127.0.0.1',
  PGPORT: process.env.PGPORT || '5432',
  PGDATABASE: process.env.PGDATABASE || 'test',
  PGUSER: process.env.PGUSER || 'postgres',
};

function answers(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: PG_TEST_ENV.PGHOST, port: Number(PG_TEST_ENV.PGPORT) });
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

/** PostgreSQL answering where the tests look for it. */
export const POSTGRES: Requirement = {
  what: `PostgreSQL on ${PG_TEST_ENV.PGHOST}:${PG_TEST_ENV.PGPORT}`,
  present: pgAnswers,
  install: 'start it (pg_ctlcluster 15 main start, see docs/host.md, "Several hosts")',
};

/** `describe` for tests that need PostgreSQL: skipped outside CI when it does not answer, failed under CI. */
export function describePg(title: string, body: () => void): void {
  needs(POSTGRES).describe(title, body);
}

/** A connected client of the tests' database (trust authentication), its search path on `schema`. */
export async function pgClient(schema?: string): Promise<pg.Client> {
  const client = new pg.Client({
    host: PG_TEST_ENV.PGHOST,
    port: Number(PG_TEST_ENV.PGPORT),
    database: PG_TEST_ENV.PGDATABASE,
    user: PG_TEST_ENV.PGUSER,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  await client.connect();
  return client;
}

/** Runs SQL on the tests' database (in `schema` when given) and returns its rows. */
export async function pgQuery(
  sql: string,
  params: unknown[] = [],
  schema?: string,
): Promise<Record<string, unknown>[]> {
  const client = await pgClient(schema);
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** A schema name no other test file uses: `t_<label>_<random>`. */
export function uniqueSchema(label: string): string {
  return `t_${label
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 30)}_${randomBytes(4).toString('hex')}`;
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  await pgQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}
