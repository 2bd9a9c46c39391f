// `loom init --store postgres` and `loom migrate` through the real bin, against the tests'
// PostgreSQL server: the connection comes from the libpq environment and no password is written
// into the instance; a broker refuses a schema it does not know, naming the versions.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { describePg, dropSchema, PG_TEST_ENV, pgQuery, uniqueSchema } from '@harness/test-utils/pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type BrokerProcess, killBrokers, loom, startBrokerProcess } from './cli';

const WORKSPACE = `version: 1
command_packs:
  - id: text
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
agents:
  - id: reader
    grants: [pack:text]
`;

// A password the server never asks for (trust authentication): it must not reach any file.
const SECRET = 'pw-never-written-7f3a';

describePg('an instance on PostgreSQL', () => {
  let t: ReturnType<typeof tempDir>;
  const schema = uniqueSchema('loom_cli');
  const brokers: BrokerProcess[] = [];
  const env = { ...PG_TEST_ENV, PGPASSWORD: SECRET };
  const describeStore = `PostgreSQL database "${PG_TEST_ENV.PGDATABASE}" on ${PG_TEST_ENV.PGHOST}:${PG_TEST_ENV.PGPORT} (user ${PG_TEST_ENV.PGUSER}, schema ${schema})`;

  beforeAll(() => {
    t = tempDir('loom-pg-');
    writeFileSync(join(t.path, 'workspace.yaml'), WORKSPACE);
    writeFileSync(join(t.path, 'scope.yaml'), 'run: run-1\nagent: reader\n');
  });
  afterEach(() => killBrokers(brokers));
  afterAll(async () => {
    t.cleanup();
    await dropSchema(schema);
  });

  const init = (name: string, extra: string[] = []) =>
    loom(
      [
        'init',
        join(t.path, name),
        '--workspace',
        join(t.path, 'workspace.yaml'),
        '--store',
        'postgres',
        ...extra,
      ],
      { env },
    );

  it('init --store postgres creates the schema and records the database from the environment, never the password', async () => {
    const r = await init('a', ['--pg-schema', schema]);
    // The one line on stderr is where the instance's audit key was recorded (docs/audit.md).
    expect(r.stderr).toMatch(
      /^audit key ed25519:[A-Za-z0-9_-]{43} recorded in \/\S+\/harness\/audit-keys\/[0-9a-f]{32}\.pub\n$/,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `initialised ${join(t.path, 'a')} (workspace ${join(t.path, 'workspace.yaml')}; store ${describeStore})\n`,
    );
    const record = JSON.parse(readFileSync(join(t.path, 'a', 'instance.json'), 'utf8'));
    expect(record.store).toEqual({
      kind: 'postgres',
      host: PG_TEST_ENV.PGHOST,
      port: Number(PG_TEST_ENV.PGPORT),
      database: PG_TEST_ENV.PGDATABASE,
      user: PG_TEST_ENV.PGUSER,
      schema,
    });
    for (const f of readdirSync(join(t.path, 'a'))) {
      expect(readFileSync(join(t.path, 'a', f), 'utf8'), f).not.toContain(SECRET);
    }
    expect(readdirSync(join(t.path, 'a'))).not.toContain('loom.db');
    expect(await pgQuery("SELECT value FROM meta WHERE key = 'schema'", [], schema)).toEqual([
      { value: '6' },
    ]);
  });

  it('a second host inits on the same schema, and both brokers serve one record', async () => {
    const r = await init('b', ['--pg-schema', schema]);
    expect(r.code, r.stderr).toBe(0);
    const a = await startBrokerProcess(join(t.path, 'a'), join(t.path, 'a.sock'), join(t.path, 'scope.yaml'));
    const b = await startBrokerProcess(join(t.path, 'b'), join(t.path, 'b.sock'), join(t.path, 'scope.yaml'));
    brokers.push(a, b);
    const compose = (queue: string) =>
      loom(['command', 'run', 'loom.compose', '--args-json', '-', '--json'], {
        env: { LOOM_PAGE_RPC_QUEUE: queue },
        stdin: JSON.stringify({ request_id: 'same', components: [{ ref: 'page:a' }] }),
      });
    const first = (await compose(join(t.path, 'a.sock'))).json();
    const second = (await compose(join(t.path, 'b.sock'))).json();
    expect(first).toMatchObject({ ok: true, body: { replayed: false } });
    expect(second).toMatchObject({ ok: true, body: { replayed: true } });
    expect((second.body as { receipt: unknown }).receipt).toEqual(
      (first.body as { receipt: unknown }).receipt,
    );
    const tail = await loom(['audit', 'tail', '--json', '--instance', join(t.path, 'b')], { env });
    expect(tail.code, tail.stderr).toBe(0);
    const events = (
      JSON.parse(tail.stdout) as { events: { command: string; payload: { request_id?: string } }[] }
    ).events;
    expect(events.filter((e) => e.command === 'loom.compose').map((e) => e.payload.request_id)).toEqual([
      'same',
      'same',
    ]);
  });

  it('migrate finds the schema current; a schema a newer host migrated stops the broker, naming both versions', async () => {
    const current = await loom(['migrate', '--instance', join(t.path, 'a')], { env });
    expect([current.code, current.stdout]).toEqual([
      0,
      `${describeStore}: schema version 6, nothing to migrate\n`,
    ]);
    await pgQuery("UPDATE meta SET value = '7' WHERE key = 'schema'", [], schema);
    try {
      const refused = await startBrokerProcess(
        join(t.path, 'a'),
        join(t.path, 'a.sock'),
        join(t.path, 'scope.yaml'),
      ).catch((error: Error) => error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toContain(
        `loom broker: the store ${describeStore} has schema version 7, and this host needs version 6; a newer host migrated it: upgrade this host`,
      );
      const migrate = await loom(['migrate', '--instance', join(t.path, 'a')], { env });
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toContain('has schema version 7, and this host needs version 6');
    } finally {
      await pgQuery("UPDATE meta SET value = '6' WHERE key = 'schema'", [], schema);
    }
  });

  it('a broker on a schema never migrated refuses to start; loom migrate creates it and the broker serves', async () => {
    const other = uniqueSchema('loom_cli_new');
    try {
      expect((await init('c', ['--pg-schema', other])).code).toBe(0);
      await dropSchema(other);
      const refused = await startBrokerProcess(
        join(t.path, 'c'),
        join(t.path, 'c.sock'),
        join(t.path, 'scope.yaml'),
      ).catch((error: Error) => error);
      expect((refused as Error).message).toContain(
        'has schema version 0, and this host needs version 6; migrate it with `loom migrate --instance <dir>`',
      );
      const migrate = await loom(['migrate', '--instance', join(t.path, 'c')], { env });
      expect([migrate.code, migrate.stdout]).toEqual([
        0,
        `${describeStore.replace(schema, other)}: migrated from schema version 0 to 6\n`,
      ]);
      brokers.push(
        await startBrokerProcess(join(t.path, 'c'), join(t.path, 'c.sock'), join(t.path, 'scope.yaml')),
      );
    } finally {
      await dropSchema(other);
    }
  });

  it('refuses an unknown --store and --pg-schema without --store postgres, creating nothing', async () => {
    const bad = await loom([
      'init',
      join(t.path, 'x'),
      '--workspace',
      join(t.path, 'workspace.yaml'),
      '--store',
      'mysql',
    ]);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      "loom init: --store must be sqlite or postgres, found 'mysql'\n",
    ]);
    const schemaOnly = await loom([
      'init',
      join(t.path, 'x'),
      '--workspace',
      join(t.path, 'workspace.yaml'),
      '--pg-schema',
      'loom',
    ]);
    expect([schemaOnly.code, schemaOnly.stderr]).toEqual([
      2,
      'loom init: --pg-schema names the schema of a PostgreSQL store; add --store postgres\n',
    ]);
    expect(readdirSync(t.path)).not.toContain('x');
  });

  it('a server that does not answer is a clear error at init, leaving no instance and naming no password', async () => {
    const r = await loom(
      ['init', join(t.path, 'y'), '--workspace', join(t.path, 'workspace.yaml'), '--store', 'postgres'],
      { env: { ...env, PGPORT: '1' } },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('did not answer (connect ECONNREFUSED');
    expect(r.stderr).toContain('nothing was written');
    expect(r.stderr).not.toContain(SECRET);
    expect(readdirSync(t.path).filter((f) => f === 'y' || f.startsWith('.y.'))).toEqual([]);
  });
});
