// What only the PostgreSQL store has: configuration from the libpq environment (never a password
// in the instance), versioned schemas checked at open, bounded waits, and lost connections —
// retried where that is safe, "may have landed" where it is not. Faults are real: a TCP proxy cuts
// the connection at a chosen message, or the server ends a session.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@harness/test-utils';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HostError } from '../src/errors';
import { createCommandHost } from '../src/host';
import { initInstance, readInstance } from '../src/instance';
import { resolveScope } from '../src/scope';
import { migrateStoreTarget, openStoreTarget } from '../src/store/open';
import { openPostgresStore, PG_SCHEMA_VERSION } from '../src/store/postgres/index';
import { passwordFor, postgresTargetFromEnv } from '../src/store/postgres/target';
import type { AuditEventInput, PostgresTarget, Store } from '../src/store/types';
import { WORKSPACE_YAML } from './helpers';
import { adminClient, describePg, freshSchema, PG_SERVER, resetSchema } from './pg';
import { type PgProxy, startPgProxy } from './pg-proxy';

const HERE = dirname(fileURLToPath(import.meta.url));

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

const caught = async (p: Promise<unknown>): Promise<HostError> => {
  try {
    await p;
  } catch (error) {
    return error as HostError;
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

describe('an instance record', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir('host-pg-record-');
  });
  afterEach(() => dir.cleanup());

  const record = (store: unknown): string => {
    const workspace = join(dir.path, 'workspace.yaml');
    writeFileSync(workspace, WORKSPACE_YAML);
    writeFileSync(
      join(dir.path, 'instance.json'),
      JSON.stringify({ version: 1, workspace, workspaceCopy: 'workspace.yaml', store }),
    );
    return dir.path;
  };

  it('names its PostgreSQL store without a password, and one that holds a password is refused', () => {
    const target = { kind: 'postgres', host: 'h', port: 5432, database: 'd', user: 'u', schema: 'loom' };
    expect(readInstance(record(target)).store).toEqual(target);
    expect(() => readInstance(record({ ...target, password: 'x' }))).toThrow(
      'its store record holds a password or a URL; remove it: the password comes from PGPASSWORD, DATABASE_URL or ~/.pgpass',
    );
    expect(() => readInstance(record({ kind: 'mysql' }))).toThrow(
      '"store.kind" must be "sqlite" or "postgres", found "mysql"',
    );
  });

  it('without a store names its own SQLite file', () => {
    expect(readInstance(record(undefined)).store).toEqual({
      kind: 'sqlite',
      file: join(dir.path, 'loom.db'),
    });
  });
});

describe('a host on SQLite', () => {
  it('never loads the PostgreSQL client', () => {
    const dir = tempDir('host-sqlite-only-');
    try {
      const workspace = join(dir.path, 'workspace.yaml');
      writeFileSync(workspace, WORKSPACE_YAML);
      const out = execFileSync(
        process.execPath,
        [
          '--conditions=@harness/source',
          '--import',
          'tsx',
          join(HERE, 'fixtures', 'sqlite-only.ts'),
          workspace,
          join(dir.path, 'instance'),
        ],
        { cwd: join(HERE, '..'), encoding: 'utf8' },
      );
      expect(JSON.parse(out)).toEqual({ code: 'ok', betterSqlite3: true, pg: false, pgPool: false });
    } finally {
      dir.cleanup();
    }
  }, 30_000);
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

  it('a connection lost before COMMIT was sent is retried: nothing had landed, the retry lands once', async () => {
    store = await viaProxy();
    const before = proxy.injected;
    proxy.arm({ match: (sql) => sql.includes('INSERT INTO audit'), cut: 'before' });
    const seq = await store.appendAudit(event('text.echo'));
    expect(proxy.injected - before).toBe(1);
    expect(await rows('SELECT seq::int AS seq, command FROM audit')).toEqual([{ seq, command: 'text.echo' }]);
  });

  it('a compose whose outcome stays unknown answers may have landed, and its retry with the same request id replays it [LA-109]', async () => {
    store = await viaProxy({ retries: 0 });
    const info = await (async () => {
      const dir = tempDir('host-pg-unknown-');
      const workspace = join(dir.path, 'workspace.yaml');
      writeFileSync(workspace, WORKSPACE_YAML);
      return { dir, workspace };
    })();
    try {
      const { loadPackBackend } = await import('../src/packs-backend');
      const { scopeWorkspace } = await loadPackBackend(info.workspace);
      const host = createCommandHost({
        store,
        scope: resolveScope({ run: 'run-1', agent: 'editor' }, scopeWorkspace),
      });
      const args = { request_id: 'r1', components: [{ ref: 'page:a' }] };
      proxy.arm({ match: (sql) => sql === 'COMMIT', cut: 'after' });
      const lost = await host.run({ op: 'run', command: 'loom.compose', args });
      expect(lost).toMatchObject({ ok: false, code: 'internal', mayHaveLanded: true });
      expect((lost.body as { message: string }).message).toContain(
        'it may have landed; retry the identical compose with the same request_id: it replays the receipt if it landed',
      );
      const again = await host.run({ op: 'run', command: 'loom.compose', args });
      expect(again).toMatchObject({ ok: true, body: { replayed: true } });
      expect(await rows('SELECT count(*)::int AS n FROM receipts')).toEqual([{ n: 1 }]);
    } finally {
      info.dir.cleanup();
    }
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

describePg('an instance on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let dir: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    schema = await freshSchema('instance');
    dir = tempDir('host-pg-instance-');
  });
  afterAll(async () => {
    dir.cleanup();
    await schema.drop();
  });

  it('records the database without a password, and its store opens from the record', async () => {
    const workspace = join(dir.path, 'workspace.yaml');
    writeFileSync(workspace, WORKSPACE_YAML);
    const saved = process.env.PGPASSWORD;
    process.env.PGPASSWORD = 'never-recorded';
    try {
      const info = await initInstance(join(dir.path, 'instance'), workspace, { store: schema.target });
      expect(info.store).toEqual(schema.target);
      const text = readFileSync(join(info.dir, 'instance.json'), 'utf8');
      expect(JSON.parse(text).store).toEqual(schema.target satisfies PostgresTarget);
      expect(text).not.toContain('never-recorded');
    } finally {
      if (saved === undefined) delete process.env.PGPASSWORD;
      else process.env.PGPASSWORD = saved;
    }
  });
});
