// harness doctor: one line per check and a verdict, against real instances, sockets and configs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectStdio, runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());
const run = (args: string[]) => runCli(['doctor', ...args], { home: box.home });

describe('harness doctor', () => {
  it('is healthy on a fresh machine, warning that no instance or broker exists yet', async () => {
    const r = await run(['--instance', join(box.root, 'fresh')]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('verdict: healthy');
    expect(lines).toContainEqual(expect.stringMatching(/^ok {3}node {3,}Node\.js \d+/));
    expect(lines).toContainEqual(expect.stringMatching(/^ok {3}loom {3,}.*loom\.js \(@harness\/loom /));
    expect(lines).toContainEqual(expect.stringMatching(/^warn broker {3,}no socket at /));
    expect(lines).toContainEqual(expect.stringMatching(/^warn store {3,}no instance at /));
  });

  it('checks a running broker: reachable, socket mode 600, store opens', async () => {
    const instance = join(box.root, 'live');
    const conn = await connectStdio(['--instance', instance], box.home);
    try {
      const r = await run(['--instance', instance, '--json']);
      expect(r.code).toBe(0);
      const checks = JSON.parse(r.stdout).checks as { name: string; status: string; detail: string }[];
      const by = Object.fromEntries(checks.map((c) => [c.name, c]));
      expect(by['socket permissions']).toMatchObject({ status: 'ok' });
      expect(by['socket permissions']?.detail).toMatch(/mode 600$/);
      expect(by.broker?.status).toBe('ok');
      expect(by.store?.status).toBe('ok');
    } finally {
      await conn.close();
    }
  });

  it('fails with a clear verdict and exit 1 on a broken configuration', async () => {
    const cfg = join(box.root, 'bad.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        cliPath: '/nonexistent/loom',
        transport: { kind: 'broker', queuePath: '/tmp/nope.sock' },
      }),
    );
    const r = await run(['--loom-commands-config', cfg]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^FAIL commands config cliPath +\/nonexistent\/loom is missing or not executable$/m,
    );
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^verdict: \d+ check\(s\) failed$/);
  });
});
