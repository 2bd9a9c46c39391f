// Where a PostgreSQL store lives: read from the libpq environment when an instance is made, recorded
// in instance.json without a password, described without one. Nothing here loads the client.
import { userInfo } from 'node:os';
import { StoreError, StoreErrorCode } from '../errors';
import type { PostgresTarget } from '../types';

/** The PostgreSQL schema an instance uses when none is named. */
export const DEFAULT_PG_SCHEMA = 'loom';

/** A schema name this host accepts: a plain lower-case identifier, never quoted. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The libpq environment variables this host reads (`PGPASSWORD` only when a store is opened). */
type PgEnv = Partial<
  Record<'DATABASE_URL' | 'PGHOST' | 'PGPORT' | 'PGDATABASE' | 'PGUSER' | 'PGPASSWORD', string>
>;

/** The parts of a `postgres://` URL, password included (used, never recorded). */
interface UrlParts {
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
}

const bad = (message: string): StoreError => new StoreError(StoreErrorCode.store, message);

/** Parses `DATABASE_URL`; an error names the variable, never its value (it may hold a password). */
function parseUrl(text: string): UrlParts {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad('DATABASE_URL is not a URL; expected postgres://user@host:port/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw bad(`DATABASE_URL must start with postgres:// or postgresql://, found ${url.protocol}//`);
  }
  const decode = (s: string): string | undefined => (s === '' ? undefined : decodeURIComponent(s));
  // `?host=/var/run/postgresql` names a socket directory, as libpq reads it.
  const host = url.searchParams.get('host') ?? decode(url.hostname.replace(/^\[(.*)\]$/, '$1'));
  const database = decode(url.pathname.replace(/^\//, ''));
  const user = decode(url.username);
  const password = decode(url.password);
  return {
    ...(host ? { host } : {}),
    ...(url.port ? { port: Number(url.port) } : {}),
    ...(database ? { database } : {}),
    ...(user ? { user } : {}),
    ...(password !== undefined ? { password } : {}),
  };
}

function portOf(text: string | undefined, from: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw bad(`${from} must be a port number from 1 to 65535, found ${JSON.stringify(text)}`);
  }
  return port;
}

/** Refuses a schema name that is not a plain identifier (it is put into SQL unquoted). */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw bad(
      `the PostgreSQL schema name must be lower-case letters, digits and _ (at most 63, not starting with a digit), found ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}

/**
 * The PostgreSQL store the environment names: `DATABASE_URL` when set, else `PGHOST`, `PGPORT`,
 * `PGDATABASE` and `PGUSER` with libpq's defaults (localhost, 5432, the login user, a database
 * named like the user). The password is never part of it.
 */
export function postgresTargetFromEnv(
  options: { schema?: string; env?: Record<string, string | undefined> } = {},
): PostgresTarget {
  const env = (options.env ?? process.env) as PgEnv;
  const url = env.DATABASE_URL ? parseUrl(env.DATABASE_URL) : undefined;
  const user = url?.user ?? (env.PGUSER || userInfo().username);
  return {
    kind: 'postgres',
    host: url?.host ?? (env.PGHOST || 'localhost'),
    port: url?.port ?? portOf(env.PGPORT, 'PGPORT') ?? 5432,
    database: url?.database ?? (env.PGDATABASE || user),
    user,
    schema: checkSchemaName(options.schema ?? DEFAULT_PG_SCHEMA),
  };
}

/**
 * The password for a target, from the environment: `PGPASSWORD`, else the password in
 * `DATABASE_URL` when that URL names the same server, database and user. `undefined` lets the
 * client read `~/.pgpass` (or `PGPASSFILE`), as libpq does.
 */
export function passwordFor(
  target: PostgresTarget,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const pg = env as PgEnv;
  if (pg.PGPASSWORD) return pg.PGPASSWORD;
  if (!pg.DATABASE_URL) return undefined;
  let url: UrlParts;
  try {
    url = parseUrl(pg.DATABASE_URL);
  } catch {
    return undefined;
  }
  const same =
    (url.host ?? 'localhost') === target.host &&
    (url.port ?? 5432) === target.port &&
    url.database === target.database &&
    url.user === target.user;
  return same ? url.password : undefined;
}

/** One line naming a PostgreSQL store for a person: never a password, never a URL. */
export function describePostgres(target: PostgresTarget): string {
  return `PostgreSQL database "${target.database}" on ${target.host}:${target.port} (user ${target.user}, schema ${target.schema})`;
}

/**
 * Reads the `store` record of an instance.json: a PostgreSQL target, or a message saying what is
 * wrong with it. A record that holds a password is refused, so none is ever kept there.
 */
export function readPostgresRecord(value: Record<string, unknown>): PostgresTarget | string {
  if ('password' in value || 'url' in value) {
    return 'its store record holds a password or a URL; remove it: the password comes from PGPASSWORD, DATABASE_URL or ~/.pgpass';
  }
  const { host, port, database, user, schema } = value;
  if (
    typeof host !== 'string' ||
    host === '' ||
    typeof port !== 'number' ||
    !Number.isInteger(port) ||
    typeof database !== 'string' ||
    database === '' ||
    typeof user !== 'string' ||
    user === '' ||
    typeof schema !== 'string' ||
    !SCHEMA_NAME.test(schema)
  ) {
    return 'its PostgreSQL store record needs host, port, database, user and schema';
  }
  return { kind: 'postgres', host, port, database, user, schema };
}
