// The audit API: one page of 100 events out of 100 000, over HTTP through the console (session
// cookie, security middleware, JSON), beside the store's own paged query in the same process.
// Target: the API's median at most 50 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, writeResult } from '@harness/bench-utils';
import { initInstance, openStore } from '@harness/host';
import { startConsole } from '../src/index';

const EVENTS = 100_000;
const dir = mkdtempSync(join(tmpdir(), 'console-bench-'));
const ws = join(dir, 'workspace.yaml');
const { writeFileSync } = await import('node:fs');
writeFileSync(ws, 'version: 1\ncommand_packs: []\nagents:\n  - id: bench\n    scopes: []\n    grants: []\n');
const instanceDir = join(dir, 'instance');
await initInstance(instanceDir, ws, { serves: { agent: 'bench' } });
const store = await openStore(instanceDir);
const commands = ['notes.append', 'echo.argv', 'repo.log', 'json-tools.query'];
for (let i = 0; i < EVENTS; i++) {
  await store.appendAudit({
    run: `run-${i % 50}`,
    actor: `agent:a${i % 7}`,
    job: null,
    command: commands[i % commands.length] as string,
    action: 'command:call',
    phase: 'run',
    outcome: i % 11 === 0 ? 'refused' : 'ok',
    code: i % 11 === 0 ? 'refused' : 'ok',
    reason: null,
    payload: { tier: 'cautious', run: { argv: ['echo', String(i)], exitCode: 0, durationMs: 3 } },
  });
}
const running = await startConsole({ instanceDir, listen: '127.0.0.1:0' });
const login = await fetch(running.loginUrl(), { redirect: 'manual' });
const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
let n = 0;
const before = () => 1 + ((n++ * 7919) % EVENTS);
const result = await compare({
  name: 'console-audit-page',
  subject: {
    label:
      'GET /api/audit?limit=100 (a deep page, filtered by agent every other call) over HTTP, of 100 000 events',
    fn: async () => {
      const q = n % 2 ? `&agent=a3` : '';
      const r = await fetch(`${running.origin}/api/audit?limit=100&before=${before()}${q}`, {
        headers: { cookie },
      });
      const body = (await r.json()) as { events: unknown[] };
      if (body.events.length === 0 && n > 5) throw new Error('empty page');
    },
  },
  anchor: {
    label: 'store.queryAudit({ limit: 100, before }) in process, the same store',
    fn: async () => {
      await store.queryAudit({ limit: 100, before: before() });
    },
  },
  rounds: 40,
});
const subject = result.subject as { median: number };
writeResult('console-audit-page', {
  ...result,
  target: { subjectMedianMsAtMost: 50 },
  pass: subject.median <= 50,
});
await running.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
