// An instance whose store is PostgreSQL, as `harness serve` and `harness doctor` show it: which
// store, and whether it answers. Real bins, the tests' PostgreSQL server.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initInstance, postgresTargetFromEnv } from '@harness/host';
import { fixturesDir } from '@harness/test-utils';
import { describePg, dropSchema, PG_TEST_ENV, uniqueSchema } from '@harness/test-utils/pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectStdio, runCli, sandbox } from './helpers';

describePg('an instance on PostgreSQL, in serve and doctor', () => {
  const box = sandbox();
  const schema = uniqueSchema('cli');
  const instance = join(box.root, 'pg');
  const target = postgresTargetFromEnv({ env: PG_TEST_ENV, schema });
  const store = `PostgreSQL database "${target.database}" on ${target.host}:${target.port} (user ${target.user}, schema ${schema})`;

  beforeAll(async () => {
    await initInstance(instance, join(fixturesDir, 'workspaces', 'demo', 'workspace.yaml'), {
      store: target,
    });
  });
  afterAll(async () => {
    box.cleanup();
    await dropSchema(schema);
  });

  it('serve names the store on stderr and says it is reachable', async () => {
    const conn = await connectStdio(['--instance', instance], box.home);
    try {
      const line = `harness: store ${store}: reachable\n`;
      expect(await conn.stderrWith(line)).toContain(line);
    } finally {
      await conn.close();
    }
  });

  it('doctor shows which store the instance uses and that it answers', async () => {
    const r = await runCli(['doctor', '--instance', instance], { home: box.home });
    expect(r.stdout).toMatch(
      new RegExp(
        `^ok {3}store {3,}${store.replace(/[().]/g, '\\$&')} answers; its schema is the version this host needs$`,
        'm',
      ),
    );
    expect(r.stdout).not.toMatch(/store size/);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('verdict: healthy');
  });

  it('doctor fails the store of an instance whose server does not answer, naming it', async () => {
    const file = join(instance, 'instance.json');
    const record = readFileSync(file, 'utf8');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(record), store: { ...target, port: 1 } }));
    try {
      const r = await runCli(['doctor', '--instance', instance], { home: box.home });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /^FAIL store {3,}the store could not read the schema version: PostgreSQL database ".*" on .*:1 \(user .*\) did not answer \(connect ECONNREFUSED .*:1\); nothing was written\./m,
      );
      expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^verdict: \d+ check\(s\) failed$/);
    } finally {
      writeFileSync(file, record);
    }
  });
});
