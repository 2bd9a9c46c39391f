// GET /metrics on the receiver: template render failures, fenced renders, runs by outcome and duration.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, tempDir } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { signBody } from '../src/signature';
import { Supervisor } from '../src/supervisor';
import { fakeAgents, mustLoad } from './helpers';

describe('metrics', () => {
  it('counts render failures, untrusted renders and runs by outcome, and reports durations [TM-130] [TM-131]', async () => {
    const fakes = fakeAgents();
    const instance = tempDir('runner-instance-');
    const config = mustLoad({
      listen: '127.0.0.1:0',
      sources: [{ id: 'gh', scheme: 'github', secret_env: 'GH', trusted_actors: ['Codertocat'] }],
      harnesses: [
        {
          id: 'triage',
          kind: 'claude-code',
          trigger: { source: 'gh', events: ['pull_request'] },
          untrusted_inline: true,
          prompt_template: 'Triage {{event.repo}}: {{untrusted event.title}} {{untrusted event.body}}',
          env: { FAKE_RECORD_DIR: fakes.records },
          workdir: fakes.dir,
        },
        {
          id: 'numbered',
          kind: 'command',
          trigger: { source: 'gh', events: ['push', 'pull_request'] },
          argv: ['/bin/echo', '{{event.number}}'],
          workdir: fakes.dir,
        },
      ],
    });
    const warnings: string[] = [];
    const s = new Supervisor(config, {
      instanceDir: instance.path,
      env: { PATH: fakes.path, GH: 'k' },
      log: (l) => warnings.push(l),
    });
    const { url } = await s.start();
    const send = async (event: string, file: string, delivery: string) => {
      const body = readFileSync(join(repoRoot, 'fixtures', 'webhooks', 'github', file), 'utf8');
      const res = await fetch(`${url}/hooks/gh`, {
        method: 'POST',
        headers: {
          'x-github-event': event,
          'x-github-delivery': delivery,
          'x-hub-signature-256': signBody('github', 'k', body),
        },
        body,
      });
      expect(res.status).toBe(202);
    };
    await send('pull_request', 'pr_opened.json', 'a');
    await send('push', 'push.json', 'b');
    await s.idle();
    await fetch(`${url}/hooks/gh`, {
      method: 'POST',
      headers: { 'x-github-event': 'push', 'x-hub-signature-256': 'sha256=00' },
      body: '{}',
    });
    const text = await (await fetch(`${url}/metrics`)).text();
    await s.stop();
    expect(text).toContain(
      'harness_template_render_failures_total{harness="numbered",reason="template_unresolved"} 1',
    );
    expect(text).toContain('harness_template_untrusted_renders_total{harness="triage"} 2');
    expect(text).toContain('harness_runs_total{harness="triage",status="succeeded"} 1');
    expect(text).toContain('harness_runs_total{harness="numbered",status="succeeded"} 1');
    expect(text).toContain('harness_runs_total{harness="numbered",status="skipped"} 1');
    expect(text).toMatch(/harness_run_duration_seconds_count\{harness="triage",status="succeeded"\} 1/);
    expect(text).toContain('harness_webhook_deliveries_total{source="gh",outcome="bad_signature"} 1');
    expect(warnings.filter((w) => w.includes('untrusted')).length).toBe(2);
    fakes.cleanup();
    instance.cleanup();
  });
});
