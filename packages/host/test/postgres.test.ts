// The host on PostgreSQL and beside it: an instance records its store without a password, a host on
// SQLite never loads the PostgreSQL client, and a compose whose outcome stays unknown reaches the
// agent as "may have landed" through the command layer (the store's own PostgreSQL tests are in
// @harness/store). Faults are real: a TCP proxy cuts the connection at a chosen message.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStoreTarget, type PostgresTarget, type Store } from '@harness/store';
import { tempDir } from '@harness/test-utils';
import { type PgProxy, startPgProxy } from '@harness/test-utils/pg-proxy';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCommandHost } from '../src/host';
import { initInstance, readInstance } from '../src/instance';
import { loadPackBackend } from '../src/packs-backend';
import { resolveScope } from '../src/scope';
import { WORKSPACE_YAML } from './helpers';
import { adminClient, describePg, freshSchema, PG_SERVER, resetSchema } from './pg';

const HERE = dirname(fileURLToPath(import.meta.url));

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

describePg('a compose whose outcome stays unknown, through the command layer', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let proxy: PgProxy;
  let store: Store | undefined;
  beforeAll(async () => {
    schema = await freshSchema('unknown');
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

  /** The store through the proxy, with the store's own bounds (two retries after the first try). */
  const viaProxy = (): Promise<Store> =>
    openStoreTarget({ ...schema.target, host: '127.0.0.1', port: proxy.port });
  /** The first try of a compose and the store's two retries after a lost COMMIT (docs/host.md). */
  const TRIES = 3;
  const rows = async (sql: string): Promise<Record<string, unknown>[]> => {
    const admin = await adminClient(schema.target.schema);
    try {
      return (await admin.query(sql)).rows;
    } finally {
      await admin.end();
    }
  };

  it('a compose whose outcome stays unknown answers may have landed, and its retry with the same request id replays it [LA-109]', async () => {
    store = await viaProxy();
    const dir = tempDir('host-pg-unknown-');
    try {
      const workspace = join(dir.path, 'workspace.yaml');
      writeFileSync(workspace, WORKSPACE_YAML);
      const { scopeWorkspace } = await loadPackBackend(workspace);
      const host = createCommandHost({
        store,
        scope: resolveScope({ run: 'run-1', agent: 'editor' }, scopeWorkspace),
      });
      const args = { request_id: 'r1', components: [{ ref: 'page:a' }] };
      // Every try's COMMIT lands and its answer is lost: the outcome stays unknown.
      const before = proxy.injected;
      for (let i = 0; i < TRIES; i++) proxy.arm({ match: (sql) => sql === 'COMMIT', cut: 'after' });
      const lost = await host.run({ op: 'run', command: 'loom.compose', args });
      expect(proxy.injected - before).toBe(TRIES);
      expect(lost).toMatchObject({ ok: false, code: 'internal', mayHaveLanded: true });
      expect((lost.body as { message: string }).message).toContain(
        'it may have landed; retry the identical compose with the same request_id: it replays the receipt if it landed',
      );
      const again = await host.run({ op: 'run', command: 'loom.compose', args });
      expect(again).toMatchObject({ ok: true, body: { replayed: true } });
      expect(await rows('SELECT count(*)::int AS n FROM receipts')).toEqual([{ n: 1 }]);
    } finally {
      dir.cleanup();
    }
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
