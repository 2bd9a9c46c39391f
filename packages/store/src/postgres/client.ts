// The connection to PostgreSQL: one pool per store (so per broker), bounded waits, and one place
// that runs a transaction and decides what a failure means — nothing written, an SQL error, or an
// outcome nobody can know. `pg` is imported here only, when a PostgreSQL store is opened.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { StoreError, StoreErrorCode } from '../errors';
import type { PostgresTarget } from '../types';
import { describePostgres, passwordFor } from './target';

/** Bounds of one PostgreSQL store; the defaults suit a broker. */
export interface PgOptions {
  /** Connections in the pool (default 10). */
  poolMax?: number;
  /** Longest wait for a connection, a new one or a free one of the pool (default 5 s, or `PGCONNECT_TIMEOUT`). */
  connectTimeoutMs?: number;
  /** Longest a statement may run, lock waits included (default 15 s). */
  statementTimeoutMs?: number;
  /** Attempts after the first when a connection is lost where that is safe (default 2). */
  retries?: number;
}

/** Runs statements inside one transaction. */
export interface Tx {
  /** One statement with `$n` parameters; its rows. */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
}

/** How {@link PgDb.tx} treats one method. */
export interface TxHow {
  /**
   * True when running the transaction again is harmless even if an earlier run committed (reads;
   * a compose, whose request id makes it so): a connection lost at COMMIT is then retried.
   */
  idempotent: boolean;
  /** Read-only: a snapshot of its own (`REPEATABLE READ, READ ONLY`). */
  readOnly?: boolean;
  /** One read statement run on its own, without BEGIN and COMMIT (a statement is one snapshot). */
  single?: boolean;
  /** A transaction-scoped advisory lock taken first, in the same round trip as `BEGIN`. */
  lock?: bigint;
  /** What a person should check when the outcome is unknown (the end of the error message). */
  unknownHint?: string;
}

/** A PostgreSQL store's connection: transactions, and the pool's end. */
export interface PgDb {
  readonly target: PostgresTarget;
  /** Runs `body` in one transaction: COMMIT on return, ROLLBACK on a throw. See {@link TxHow}. */
  tx<T>(what: string, body: (tx: Tx) => Promise<T>, how: TxHow): Promise<T>;
  close(): Promise<void>;
}

const DEFAULTS = { poolMax: 10, connectTimeoutMs: 5_000, statementTimeoutMs: 15_000, retries: 2 };
// A session idle inside a transaction this long is ended by the server: a broker cut off by the
// network must not hold row locks for ever.
const IDLE_IN_TRANSACTION_MS = 60_000;
// The client gives up on an answer a little after the server's own statement timeout would have
// fired, so a silent network (no reset) cannot hang a call.
const CLIENT_GRACE_MS = 5_000;
// Waits between attempts: short, then longer (a restarting server takes a moment to accept).
const BACKOFF_MS = [100, 400, 1_000];

/**
 * The key of a transaction-scoped advisory lock for a text: 60 bits of its SHA-256. Two texts that
 * share a key only wait for each other; nothing else depends on it being unique.
 */
export function lockKey(text: string): bigint {
  return BigInt(`0x${createHash('sha256').update(text).digest('hex').slice(0, 15)}`);
}

/** An error the driver raised for one statement (kept apart from errors of the caller's code). */
class DriverError extends Error {
  constructor(readonly original: Error) {
    super(original.message);
  }
}

/** What a failure of the driver means for the transaction it hit; `caller`: the body's own throw. */
type Failure = 'lost' | 'retry' | 'sql' | 'caller';

/**
 * `lost`: the connection broke (no answer from the server, or the server ended the session), so an
 * uncommitted transaction was rolled back by the server, and a COMMIT's fate is unknown. `retry`:
 * the server rolled the transaction back to resolve a conflict (serialization failure, deadlock,
 * a unique key another transaction just took): nothing landed, running it again is the fix.
 * `sql`: any other error the server answered with.
 */
function classify(error: Error): Failure {
  const code = (error as { code?: unknown }).code;
  const fromServer = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && 'severity' in error;
  if (!fromServer) return 'lost';
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return 'lost';
  if (code === '40001' || code === '40P01' || code === '23505') return 'retry';
  return 'sql';
}

/** The error's message with the password (when one was used) taken out. */
function scrub(message: string, password: string | undefined): string {
  return password ? message.split(password).join('[redacted]') : message;
}

/** The pool's settings for a target: bounded waits, the schema on the search path. */
function poolConfig(target: PostgresTarget, options: PgOptions): PoolConfig {
  const envTimeout = Number(process.env.PGCONNECT_TIMEOUT);
  const connectTimeoutMs =
    options.connectTimeoutMs ??
    (Number.isFinite(envTimeout) && envTimeout > 0 ? envTimeout * 1000 : DEFAULTS.connectTimeoutMs);
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULTS.statementTimeoutMs;
  const password = passwordFor(target);
  return {
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    ...(password !== undefined ? { password } : {}),
    max: options.poolMax ?? DEFAULTS.poolMax,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    query_timeout: statementTimeoutMs + CLIENT_GRACE_MS,
    keepAlive: true,
    application_name: `loom-host:${target.schema}`,
    // Startup parameters, so every statement runs with them and a single-statement read needs no
    // transaction of its own. The schema name is a checked identifier (target.ts).
    options: `-c search_path=${target.schema} -c statement_timeout=${statementTimeoutMs} -c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}`,
  };
}

/** How the failures of one store's transactions are told: naming the store, never its password. */
interface Failures {
  /** The driver's message with the password taken out. */
  reason(error: Error): string;
  unavailable(what: string, error: Error): StoreError;
  unknown(what: string, error: Error, how: TxHow): StoreError;
}

function failuresOf(target: PostgresTarget, password: string | undefined): Failures {
  const where = describePostgres(target);
  const reason = (error: Error): string => scrub(error.message, password);
  return {
    reason,
    unavailable: (what, error) =>
      new StoreError(
        StoreErrorCode.store_unavailable,
        `the store could not ${what}: ${where} did not answer (${reason(error)}); nothing was written. Check that the server answers (pg_isready -h ${target.host} -p ${target.port}) and the credentials (PGPASSWORD or ~/.pgpass)`,
        { cause: error },
      ),
    unknown: (what, error, how) =>
      new StoreError(
        StoreErrorCode.store_outcome_unknown,
        `the connection to ${where} was lost while committing (${what}): it may have landed${how.unknownHint ? `; ${how.unknownHint}` : ''}`,
        { cause: error },
      ),
  };
}

/** A checked-out client as a {@link Tx}: a statement's rejection is marked as the driver's. */
function wrap(client: PoolClient): Tx {
  return {
    async query<R>(sql: string, params?: readonly unknown[]): Promise<R[]> {
      try {
        return (await client.query(sql, params as unknown[] | undefined)).rows as R[];
      } catch (error) {
        throw new DriverError(error as Error);
      }
    },
  };
}

/** One attempt: `done` with the value, or what went wrong and whether COMMIT had been sent. */
async function attempt<T>(
  pool: Pool,
  body: (tx: Tx) => Promise<T>,
  how: TxHow,
): Promise<{ done: T } | { failure: Failure; error: Error; atCommit: boolean }> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    return { failure: 'lost', error: error as Error, atCommit: false };
  }
  // A connection that breaks while checked out is also reported as an event on its client; the
  // statement's own rejection is what this code acts on, so the event is only swallowed.
  const ignore = () => {};
  client.on('error', ignore);
  const release = (error?: Error) => {
    client.off('error', ignore);
    client.release(error);
  };
  let atCommit = false;
  const tx = wrap(client);
  try {
    if (how.single) {
      const done = await body(tx);
      release();
      return { done };
    }
    const begin = how.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY' : 'BEGIN';
    // One round trip; the key is a number this module computed, never text from a caller. Through
    // `tx`, so a connection found dead here (the server ended it while it sat idle in the pool, and
    // its error event had not arrived yet) is `lost` and the transaction is run again on another.
    await tx.query(how.lock === undefined ? begin : `${begin}; SELECT pg_advisory_xact_lock(${how.lock})`);
    const done = await body(tx);
    atCommit = true;
    await client.query('COMMIT');
    release();
    return { done };
  } catch (thrown) {
    const error = thrown instanceof DriverError ? thrown.original : (thrown as Error);
    const failure: Failure = thrown instanceof DriverError || atCommit ? classify(error) : 'sql';
    if (failure === 'lost') {
      // The server rolls back what it did not commit when the connection goes; nothing to undo.
      release(error);
    } else if (how.single) {
      release();
    } else {
      // A COMMIT the server refused has rolled back already; ROLLBACK then only warns.
      await client.query('ROLLBACK').then(
        () => release(),
        (e: Error) => release(e),
      );
    }
    const caller = !(thrown instanceof DriverError) && !atCommit;
    return { failure: caller ? 'caller' : failure, error, atCommit };
  }
}

/**
 * Runs one transaction of {@link PgDb.tx}: attempts it again where that is safe, and turns what
 * failed into the StoreError that says whether anything may have landed.
 */
async function runTx<T>(
  pool: Pool,
  bounds: { retries: number; failures: Failures },
  what: string,
  body: (tx: Tx) => Promise<T>,
  how: TxHow,
): Promise<T> {
  const { retries, failures } = bounds;
  let mayHaveLanded = false;
  let last: { failure: Failure; error: Error } | undefined;
  for (let n = 0; n <= retries; n++) {
    if (n > 0) await sleep(BACKOFF_MS[n - 1] ?? 1_000);
    const result = await attempt(pool, body, how);
    if ('done' in result) return result.done;
    const { failure, error, atCommit } = result;
    if (failure === 'caller' && error instanceof StoreError) throw error;
    if (failure === 'sql' || failure === 'caller') {
      throw new StoreError(StoreErrorCode.store, `the store failed to ${what}: ${failures.reason(error)}`, {
        cause: error,
      });
    }
    last = { failure, error };
    if (failure === 'lost' && atCommit) {
      if (!how.idempotent && !how.readOnly) throw failures.unknown(what, error, how);
      mayHaveLanded ||= !how.readOnly;
    }
  }
  const error = last?.error ?? new Error('no attempt');
  if (mayHaveLanded) throw failures.unknown(what, error, how);
  if (last?.failure === 'retry') {
    throw new StoreError(
      StoreErrorCode.store,
      `the store failed to ${what}: it conflicted with other writers ${retries + 1} times (${failures.reason(error)}); nothing was written, try again`,
      { cause: error },
    );
  }
  throw failures.unavailable(what, error);
}

/** Opens the pool of a PostgreSQL store (no connection is made until the first transaction). */
export async function connectPostgres(target: PostgresTarget, options: PgOptions = {}): Promise<PgDb> {
  const pg = (await import('pg')).default;
  const config = poolConfig(target, options);
  const pool: Pool = new pg.Pool(config);
  // A connection the server ends while it sits idle in the pool is dropped from it; the next
  // transaction takes another. Without a listener the error would end the process.
  pool.on('error', () => {});
  const bounds = {
    retries: options.retries ?? DEFAULTS.retries,
    failures: failuresOf(target, config.password as string | undefined),
  };
  return {
    target,
    tx: (what, body, how) => runTx(pool, bounds, what, body, how),
    async close() {
      await pool.end();
    },
  };
}
