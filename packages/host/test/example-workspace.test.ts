// The example workspace (fixtures/workspaces/demo) through a real broker: what its agents may and
// may not reach. The json-tools pack confines jq to data/*.json and refuses module imports, since jq
// otherwise reads any file it is pointed at.
import { join } from 'node:path';
import { brokerRun } from '@harness/protocol/client';
import { fixturesDir, needs, tempDir } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { initInstance, type RunningBroker, startBroker } from '../src/index';

const withJq = needs('jq');
let t: { path: string; cleanup: () => void };
let broker: RunningBroker;

beforeAll(async () => {
  t = tempDir('example-ws-');
  const instance = join(t.path, 'instance');
  await initInstance(instance, join(fixturesDir, 'workspaces', 'demo', 'workspace.yaml'));
  broker = await startBroker({
    instanceDir: instance,
    socketPath: join(t.path, 'q.sock'),
    scope: { run: 'r', agent: 'reader' },
  });
});
afterAll(async () => {
  await broker?.close();
  t?.cleanup();
});

async function query(args: Record<string, unknown>) {
  const r = await brokerRun(broker.socketPath, { command: 'json-tools.query', args });
  if (!r.ok) throw new Error(JSON.stringify(r.failure));
  return r.value;
}

withJq.describe('the example json-tools pack', () => {
  it('reads a JSON file under data/', async () => {
    expect(await query({ filter: '.[0].name', file: 'data/people.json' })).toMatchObject({
      ok: true,
      code: 'ok',
    });
  });

  it('refuses a file outside data/ as bad-args before jq runs', async () => {
    for (const file of ['/etc/passwd', '../workspace.yaml', 'data/../../x.json', 'data/a.json.bak']) {
      expect(await query({ filter: '.', file }), file).toMatchObject({
        ok: false,
        code: 'bad-args',
        mayHaveLanded: false,
      });
    }
  });

  it('refuses a filter that imports or includes a module', async () => {
    const filter = 'import "etc/passwd" as $x {search: "/"}; $x';
    expect(await query({ filter, file: 'data/people.json' })).toMatchObject({ ok: false, code: 'bad-args' });
    expect(await query({ filter: 'include "x"; .', file: 'data/people.json' })).toMatchObject({
      ok: false,
      code: 'bad-args',
    });
  });
});
