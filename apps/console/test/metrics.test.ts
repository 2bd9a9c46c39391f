// GET /metrics of the console: Prometheus text of what the instance's store records, for a bearer
// of the metrics token only. Real HTTP, a real `harness serve` making the events through the MCP
// client, the real store.
import { decideApproval } from '@harness/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../src/index';
import { makeInstance, serveAgent, type TestInstance } from './helpers/instance';

const TOKEN = 'metrics-token-0123456789abcdef0123456789';

/** The value of one sample line of `text` (`name{labels} value`), or undefined. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('the console at /metrics', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let off: RunningConsole;
  const scrape = (c: RunningConsole, token?: string) =>
    fetch(
      `${c.origin}/metrics`,
      token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
    );

  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0', metricsToken: TOKEN });
    off = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    await off?.close();
    t?.cleanup();
  });

  it('counts the calls, refusals, run times and decisions the store records, and the approvals waiting', async () => {
    const before = await (await scrape(running, TOKEN)).text();
    expect(sample(before, 'harness_approvals_pending')).toBe(0);
    const agent = await serveAgent(t);
    try {
      expect(
        await agent.call('run_command', { command: 'echo.argv', args: { value: 'metric-value-9e2f' } }),
      ).toMatchObject({ status: 'executed' });
      // Two strict calls wait for a person; one is then approved from the CLI.
      await agent.call('run_command', { command: 'notes.append', args: { line: 'one' } });
      await agent.call('run_command', { command: 'notes.append', args: { line: 'two' } });
      const waiting = await scrape(running, TOKEN);
      expect(waiting.headers.get('content-type')).toContain('text/plain');
      const text = await waiting.text();
      expect(sample(text, 'harness_approvals_pending')).toBe(2);
      expect(sample(text, 'harness_command_calls_total{harness_command="echo.argv",outcome="ok"}')).toBe(1);
      expect(sample(text, 'harness_command_refusals_total{harness_refusal_code="approval_required"}')).toBe(
        2,
      );
      expect(
        text
          .split('\n')
          .some((l) =>
            /^harness_exec_duration_seconds_count\{harness_command="echo.argv",harness_sandbox="[a-z]+"\} 1$/.test(
              l,
            ),
          ),
      ).toBe(true);
      expect(text).not.toContain('metric-value-9e2f');
      const [first] = await running.ctx.store.listApprovals({ status: 'pending' });
      await decideApproval(t.instanceDir, String(first?.id), 'approved', 'person:ann', undefined, 'cli');
      const after = await (await scrape(running, TOKEN)).text();
      expect(sample(after, 'harness_approvals_pending')).toBe(1);
      expect(sample(after, 'harness_approval_decisions_total{decision="approved",via="cli"}')).toBe(1);
      // Read again, the audit is not counted twice.
      expect(sample(after, 'harness_command_calls_total{harness_command="echo.argv",outcome="ok"}')).toBe(1);
    } finally {
      await agent.close();
    }
  }, 60_000);

  it('answers 401 without the metrics token or with another, and says how to turn it on when off', async () => {
    for (const token of [undefined, 'not-the-token']) {
      const r = await scrape(running, token);
      expect(r.status).toBe(401);
      expect((await r.json()).error.code).toBe('unauthenticated');
    }
    const r = await scrape(off, TOKEN);
    expect(r.status).toBe(404);
    expect((await r.json()).error.message).toContain('--metrics-token-file');
  });

  it('refuses a metrics token shorter than 32 characters at start', async () => {
    await expect(
      startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0', metricsToken: 'short' }),
    ).rejects.toMatchObject({ code: 'token_invalid' });
  });
});
