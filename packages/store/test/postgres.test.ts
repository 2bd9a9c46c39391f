// What only the PostgreSQL store has: its target from the libpq environment (never holding a
// password), versioned schemas checked at open, bounded waits, and lost connections — retried
// where that is safe, "may have landed" where it is not. Faults are real: a TCP proxy cuts the
// connection at a chosen message, or the server ends a session.
import { pgClient as adminClient, describePg } from '@harness/test-utils/pg';
import { type PgProxy, startPgProxy } from '@harness/test-utils/pg-proxy';
import { PG_SERVER, resetSchema } from '@harness/test-utils/stores';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreError } from '../src/errors';
import { migrateStoreTarget, openStoreTarget } from '../src/open';
import { openPostgresStore, PG_SCHEMA_VERSION } from '../src/postgres/index';
import { passwordFor, postgresTargetFromEnv } from '../src/postgres/target';
import type { AuditEventInput, Store } from '../src/types';
import { freshSchema } from './stores';

const event = (command: string): AuditEventInput => ({
  run: 'r1',
  actor: 'agent:me',
  job: null,
  command,
  action: `command:call:${command}`,
  phase: 'run',
  outcome: 'ok',
  code: 'ok',
  reason: null,
  payload: {},
});

const caught = async (p: Promise<unknown>): Promise<StoreError> => {
  try {
    await p;
  } catch (error) {
    return error as StoreError;
  }
  throw new Error('expected a rejection');
};

describe('the PostgreSQL target comes from the libpq environment, without a password', () => {
  it('reads DATABASE_URL when set, keeping its password out of the target', () => {
    const env = {
      DATABASE_URL: 'postgres://ada:s3cret@db.example:6432/team?sslmode=require',
      PGHOST: 'other',
    };
    const target = postgresTargetFromEnv({ env, schema: 'team_loom' });
    expect(target).toEqual({
      kind: 'postgres',
      host: 'db.example',
      port: 6432,
      database: 'team',
      user: 'ada',
      schema: 'team_loom',
    });
    expect(JSON.stringify(target)).not.toContain('s3cret');
    expect(passwordFor(target, env)).toBe('s3cret');
  });

  it('reads PGHOST, PGPORT, PGDATABASE and PGUSER, with libpq defaults for what is unset', () => {
    expect(postgresTargetFromEnv({ env: { PGHOST: '/var/run/postgresql', PGUSER: 'loom' } })).toEqual({
      kind: 'postgres',
      host: '/var/run/postgresql',
      port: 5432,
      database: 'loom',
      user: 'loom',
      schema: 'loom',
    });
  });

  it('takes the password from PGPASSWORD, or from a DATABASE_URL naming the same database only', () => {
    const target = postgresTargetFromEnv({ env: { PGHOST: 'h', PGUSER: 'u', PGDATABASE: 'd' } });
    expect(passwordFor(target, { PGPASSWORD: 'p1' })).toBe('p1');
    expect(passwordFor(target, { DATABASE_URL: 'postgres://u:p2@h:5432/d' })).toBe('p2');
    expect(passwordFor(target, { DATABASE_URL: 'postgres://u:p3@elsewhere:5432/d' })).toBeUndefined();
  });

  it('refuses a bad port, a URL of another scheme and a schema name that is not a plain identifier, naming no secret', () => {
    expect(() => postgresTargetFromEnv({ env: { PGPORT: 'x' } })).toThrow(
      'PGPORT must be a port number from 1 to 65535, found "x"',
    );
    const url = () => postgresTargetFromEnv({ env: { DATABASE_URL: 'mysql://u:topsecret@h/d' } });
    expect(url).toThrow('DATABASE_URL must start with postgres:// or postgresql://, found mysql://');
    expect(() => postgresTargetFromEnv({ env: {}, schema: 'Loom; DROP' })).toThrow(
      'the PostgreSQL schema name must be lower-case letters, digits and _ (at most 63, not starting with a digit), found "Loom; DROP"',
    );
  });
});

describePg('schema versions', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  beforeAll(async () => {
    schema = await freshSchema('versions');
  });
  afterAll(() => schema.drop());

  const setVersion = async (v: string) => {
    const admin = await adminClient(schema.target.schema);
    await admin.query("UPDATE meta SET value = $1 WHERE key = 'schema'", [v]);
    await admin.end();
  };

  it('migrates a new schema to the current version once, and again finds nothing to do', async () => {
    expect(await migrateStoreTarget(schema.target)).toEqual({
      from: PG_SCHEMA_VERSION,
      to: PG_SCHEMA_VERSION,
    });
    const fresh = { ...schema.target, schema: `${schema.target.schema}_b` };
    try {
      // Two hosts migrating one new schema at once: one creates it, the other finds it current.
      const both = await Promise.all([migrateStoreTarget(fresh), migrateStoreTarget(fresh)]);
      expect(both.map((r) => r.from).sort()).toEqual([0, PG_SCHEMA_VERSION]);
      await (await openStoreTarget(fresh)).close();
    } finally {
      const admin = await adminClient();
      await admin.query(`DROP SCHEMA ${fresh.schema} CASCADE`);
      await admin.end();
    }
  });

  it('brings a version 5 schema to 6: its sightings keep their rows, without a definition, last seen when first seen [SV-18]', async () => {
    const admin = await adminClient(schema.target.schema);
    try {
      await admin.query(`ALTER TABLE tool_sightings DROP COLUMN definition, DROP COLUMN last_seen;
        INSERT INTO tool_sightings VALUES ('gh', 'get', '${'a'.repeat(64)}', '2026-01-01T00:00:00.000Z', NULL, NULL)`);
    } finally {
      await admin.end();
    }
    await setVersion('5');
    expect(await migrateStoreTarget(schema.target)).toEqual({ from: 5, to: 6 });
    expect(PG_SCHEMA_VERSION).toBe(6);
    const store = await openStoreTarget(schema.target);
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
    } finally {
      await store.close();
    }
  });

  it('refuses to open a schema a newer host migrated, naming the version found and the one needed', async () => {
    await setVersion('7');
    try {
      const error = await caught(openStoreTarget(schema.target));
      expect(error.code).toBe('store_schema');
      expect(error.message).toBe(
        `the store PostgreSQL database "${PG_SERVER.database}" on ${PG_SERVER.host}:${PG_SERVER.port} (user ${PG_SERVER.user}, schema ${schema.target.schema}) has schema version 7, and this host needs version ${PG_SCHEMA_VERSION}; a newer host migrated it: upgrade this host (every host on one database runs a release that knows its schema)`,
      );
      expect((await caught(migrateStoreTarget(schema.target))).code).toBe('store_schema');
    } finally {
      await setVersion(String(PG_SCHEMA_VERSION));
    }
  });

  it('refuses to open a schema that was never migrated, saying how to migrate it', async () => {
    const empty = { ...schema.target, schema: `${schema.target.schema}_e` };
    const error = await caught(openStoreTarget(empty));
    expect(error.code).toBe('store_schema');
    expect(error.message).toContain(
      `has schema version 0, and this host needs version ${PG_SCHEMA_VERSION}; migrate it with \`loom migrate --instance <dir>\``,
    );
  });
});

describePg('bounded waits and lost connections', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let proxy: PgProxy;
  let store: Store | undefined;
  beforeAll(async () => {
    schema = await freshSchema('faults');
    proxy = await startPgProxy(PG_SERVER.host, PG_SERVER.port);
  });
  afterAll(async () => {
    await proxy.close();
    await schema.drop();
  });
  beforeEach(() => resetSchema(schema.target.schema));
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  /** The store through the proxy. */
  const viaProxy = (options: { retries?: number } = {}): Promise<Store> =>
    openPostgresStore({ ...schema.target, host: '127.0.0.1', port: proxy.port }, options);
  const rows = async (sql: string): Promise<Record<string, unknown>[]> => {
    const admin = await adminClient(schema.target.schema);
    try {
      return (await admin.query(sql)).rows;
    } finally {
      await admin.end();
    }
  };
  const compose = (requestId: string) => ({
    namespace: 'run-1/agent:me',
    actor: 'agent:me',
    run: 'run-1',
    requestId,
    components: [{ ref: 'page:a' }],
    argsHash: 'h',
    audit: () => event('loom.compose'),
  });

  it('a compose whose COMMIT answer is lost is retried with its request id and reports the commit it made, once [LA-110]', async () => {
    store = await viaProxy();
    const before = proxy.injected;
    proxy.arm({ match: (sql) => sql === 'COMMIT', cut: 'after' });
    const outcome = await store.compose(compose('r1'));
    expect(proxy.injected - before).toBe(1);
    expect(outcome.kind).toBe('committed');
    expect(await rows('SELECT request_id FROM receipts')).toEqual([{ request_id: 'r1' }]);
    expect(await rows('SELECT command FROM audit')).toEqual([{ command: 'loom.compose' }]);
  });

  it('a write that is not idempotent and loses its COMMIT answer says it may have landed, and it did', async () => {
    store = await viaProxy();
    proxy.arm({ match: (sql) => sql === 'COMMIT', cut: 'after' });
    const error = await caught(store.appendAudit(event('text.echo')));
    expect(error.code).toBe('store_outcome_unknown');
    expect(error.message).toBe(
      `the connection to PostgreSQL database "${PG_SERVER.database}" on 127.0.0.1:${proxy.port} (user ${PG_SERVER.user}, schema ${schema.target.schema}) was lost while committing (append an audit event): it may have landed; the event may or may not be in the audit log (loom audit tail shows it if it is)`,
    );
    expect(await rows('SELECT command FROM audit')).toEqual([{ command: 'text.echo' }]);
  });

  it("an approval notice's claim whose COMMIT answer is lost is still its own: it reads as won, once", async () => {
    store = await viaProxy();
    const claim = { approval: 'apr-lost', target: 'ops', event: 'approval.pending' as const };
    const before = proxy.injected;
    proxy.arm({ match: (sql) => sql === 'COMMIT', cut: 'after' });
    expect(await store.claimNotice(claim)).toBe(true);
    expect(proxy.injected - before).toBe(1);
    // Any later claim of the same announcement is another's.
    expect(await store.claimNotice(claim)).toBe(false);
    expect(await rows("SELECT status, attempts FROM approval_notices WHERE approval = 'apr-lost'")).toEqual([
      { status: 'sending', attempts: 0 },
    ]);
  });

  it('a connection lost before COMMIT was sent is retried: nothing had landed, the retry lands once', async () => {
    store = await viaProxy();
    const before = proxy.injected;
    proxy.arm({ match: (sql) => sql.includes('INSERT INTO audit'), cut: 'before' });
    const seq = await store.appendAudit(event('text.echo'));
    expect(proxy.injected - before).toBe(1);
    expect(await rows('SELECT seq::int AS seq, command FROM audit')).toEqual([{ seq, command: 'text.echo' }]);
  });

  it('connections the server ended while idle in the pool are replaced without an error', async () => {
    store = await openStoreTarget(schema.target);
    await store.appendAudit(event('before'));
    const admin = await adminClient();
    try {
      const ended = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [`loom-host:${schema.target.schema}`],
      );
      expect(ended.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await store.appendAudit(event('after'));
    expect((await store.tailAudit(10)).map((e) => e.command)).toEqual(['before', 'after']);
  });

  it('a server that does not answer is reported as such: nothing written, no password in the message', async () => {
    const saved = process.env.PGPASSWORD;
    process.env.PGPASSWORD = 'hunter2-secret';
    try {
      // Port 1 on loopback: nothing listens, the connection is refused at once.
      const error = await caught(openPostgresStore({ ...schema.target, port: 1 }, { retries: 1 }));
      expect(error.code).toBe('store_unavailable');
      expect(error.message).toMatch(
        /^the store could not read the schema version: PostgreSQL database ".*" on 127\.0\.0\.1:1 \(user .*\) did not answer \(connect ECONNREFUSED 127\.0\.0\.1:1\); nothing was written\. Check that the server answers \(pg_isready -h 127\.0\.0\.1 -p 1\) and the credentials \(PGPASSWORD or ~\/\.pgpass\)$/,
      );
      expect(error.message).not.toContain('hunter2');
    } finally {
      if (saved === undefined) delete process.env.PGPASSWORD;
      else process.env.PGPASSWORD = saved;
    }
  });

  it('a statement waiting on a lock another session holds fails at the statement timeout, writing nothing', async () => {
    store = await openPostgresStore(schema.target, { statementTimeoutMs: 300 });
    const first = await store.compose({ ...compose('r1'), audit: undefined as never });
    if (first.kind !== 'committed') throw new Error('compose did not commit');
    const loomId = first.receipt.loom_id;
    const admin = await adminClient(schema.target.schema);
    try {
      await admin.query('BEGIN');
      await admin.query('SELECT 1 FROM looms WHERE id = $1 FOR UPDATE', [loomId]);
      const error = await caught(store.compose({ ...compose('r2'), loomId }));
      expect(error.code).toBe('store');
      expect(error.message).toBe(
        'the store failed to commit a compose: canceling statement due to statement timeout',
      );
    } finally {
      await admin.query('ROLLBACK');
      await admin.end();
    }
    expect((await store.inspect(loomId))?.version).toBe(1);
    expect(await rows('SELECT request_id FROM receipts')).toEqual([{ request_id: 'r1' }]);
  });
});
