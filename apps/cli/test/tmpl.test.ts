// harness tmpl check|render against the real captured webhook deliveries in fixtures/webhooks.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fixturesDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, bin, runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());
const run = (args: string[]) => runCli(args, { home: box.home });
const delivery = (scheme: string, file: string) => join(fixturesDir, 'webhooks', scheme, file);

describe('harness tmpl check', () => {
  it('accepts templates valid for the location', async () => {
    // `--` ends the options, so a template may start with a dash.
    const r = await run(['tmpl', 'check', '--', '{{event.repo}}', '--pr={{event.number?}}']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('ok: 2 template(s) valid for argv\n');
  });

  it('reports an unknown path with line:column, exit 1', async () => {
    const r = await run(['tmpl', 'check', 'x {{event.pr.number}}', '--json']);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout);
    expect(json.issues[0]).toMatchObject({ code: 'unknown_path', line: 1, column: 3 });
  });

  it('says it checks event and run templates, not pack argv, and points at packs check and packs render', async () => {
    const r = await run(['tmpl', 'check', '{{dir}}']);
    expect(r.stdout).toContain(
      "note: tmpl checks event and run templates (a triggered run's context), not pack argv; a pack command's placeholders are its inputs: check them with `harness packs check <workspace.yaml>` and see a call's argv with `harness packs render <command> --args <json>`\n",
    );
    expect(r.code).toBe(1);
    const help = await run(['tmpl', '--help']);
    expect(help.stdout).toContain("These are the runner's event and run templates");
    expect(help.stdout).toContain('harness packs render <command> --args <json>');
  });

  it('refuses free text in argv, and allows it fenced in a prompt with --untrusted-inline', async () => {
    expect((await run(['tmpl', 'check', '{{event.body}}'])).code).toBe(1);
    const fenced = await run([
      'tmpl',
      'check',
      'Summarise {{untrusted event.body}}',
      '--location',
      'prompt',
      '--untrusted-inline',
    ]);
    expect(fenced.code).toBe(0);
  });
});

describe('harness tmpl render', () => {
  it.each([
    ['github', 'pr_opened.json', 'pull_request'],
    ['gitea', 'pull_request_opened.json', 'pull_request'],
    ['forgejo', 'HookPullRequest.json', 'pull_request'],
  ])('renders argv against a %s %s delivery, one element per template', async (scheme, file, event) => {
    const path = delivery(scheme, file);
    const r = await run([
      'tmpl',
      'render',
      '--delivery',
      path,
      '--scheme',
      scheme,
      '--event',
      event,
      '--',
      '{{event.repo}}',
      '--number={{event.number}}',
      '{{event.file}}',
    ]);
    expect(r.code).toBe(0);
    const argv = JSON.parse(r.stdout) as string[];
    expect(argv).toHaveLength(3);
    expect(argv[0]).toMatch(/^[^/\s]+\/[^/\s]+$/);
    expect(argv[1]).toMatch(/^--number=\d+$/);
    expect(argv[2]).toBe(path);
  });

  it('renders a prompt against a delivery', async () => {
    const r = await run([
      'tmpl',
      'render',
      'Triage {{event.repo}}#{{event.number}}; details in {{event.file}}',
      '--location',
      'prompt',
      '--delivery',
      delivery('github', 'pr_opened.json'),
      '--scheme',
      'github',
      '--event',
      'pull_request',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Triage bradrydzewski\/drone-test-go#1; details in \/.*pr_opened\.json\n$/);
  });

  it('refuses an unknown scheme and a delivery without --scheme, exit 2', async () => {
    const path = delivery('github', 'push.json');
    const bad = await run([
      'tmpl',
      'render',
      '{{event.repo}}',
      '--delivery',
      path,
      '--scheme',
      'svn',
      '--event',
      'push',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("harness: --scheme must be github, gitea or forgejo, found 'svn'\n");
    const missing = await run(['tmpl', 'render', '{{event.repo}}', '--delivery', path]);
    expect(missing.code).toBe(2);
  });
});

describe('a reader that stops early', () => {
  it('ends quietly with exit 0 when the reader closes the pipe before the output is written', async () => {
    // 2 000 literal templates of 100 bytes: 200 KB of JSON, far past a pipe's buffer, read by
    // `head -c 50`, which exits after its first 50 bytes: the rest is written after the reader went.
    const templates = Array.from(
      { length: 2000 },
      (_, i) => `${String(i).padStart(4, '0')}${'a'.repeat(96)}`,
    );
    const args = ['tmpl', 'render', '--delivery', delivery('github', 'pr_opened.json')];
    args.push('--scheme', 'github', '--event', 'pull_request', '--', ...templates);
    // pipefail: the pipeline's status is harness's own when it fails, head's (0) otherwise.
    const child = spawn(
      'bash',
      ['-o', 'pipefail', '-c', '"$@" | head -c 50', 'bash', process.execPath, bin, ...args],
      {
        env: baseEnv(box.home),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stdout).toBe(`[\n  "0000${'a'.repeat(41)}`);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
