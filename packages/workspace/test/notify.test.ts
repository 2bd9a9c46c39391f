// The workspace's `notify` block (docs/notify.md): its targets with every default resolved, every
// mistake an issue at its line and column saying what was expected, and a secret's variable that
// is not set here a warning naming it (never its value).

import { formatIssue, type LoadOptions } from '@harness/packs';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../src/index';

const PACKS = `command_packs:
  - id: notes
    permission: strict
    commands:
      - id: write
        argv: [echo, 'note:{{line}}']
        effects: write
`;

async function load(notify: string, options: LoadOptions = {}) {
  return loadWorkspace(
    { text: `version: 1\n${notify}${PACKS}`, file: 'workspace.yaml' },
    { probe: false, ...options },
  );
}

async function issues(notify: string): Promise<string[]> {
  const r = await load(notify);
  if (r.ok) throw new Error('expected the load to fail');
  return r.issues.map(formatIssue);
}

describe('the notify block', () => {
  it('resolves each target with its name, include_args false, a 5s timeout and 4 attempts by default', async () => {
    const r = await load(
      `notify:
  link: https://console.example.com/
  targets:
    - kind: webhook
      url: https://hooks.example.com/harness
      secret_env: HOOK_SECRET
    - kind: webhook
      url: http://127.0.0.1:9000/
      secret_env: HOOK_SECRET
      include_args: true
    - kind: ntfy
      url: https://ntfy.sh/approvals
      name: phone
    - kind: slack
      url_env: SLACK_URL
`,
      { env: { HOOK_SECRET: 's', SLACK_URL: 'u' } },
    );
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.warnings).toEqual([]);
    expect(r.workspace.notify).toEqual({
      link: 'https://console.example.com/',
      timeoutMs: 5000,
      attempts: 4,
      targets: [
        {
          kind: 'webhook',
          name: 'webhook',
          url: 'https://hooks.example.com/harness',
          secretEnv: 'HOOK_SECRET',
          includeArgs: false,
        },
        {
          kind: 'webhook',
          name: 'webhook-2',
          url: 'http://127.0.0.1:9000/',
          secretEnv: 'HOOK_SECRET',
          includeArgs: true,
        },
        { kind: 'ntfy', name: 'phone', url: 'https://ntfy.sh/approvals', includeArgs: false },
        { kind: 'slack', name: 'slack', urlEnv: 'SLACK_URL', includeArgs: false },
      ],
    });
  });

  it('is absent from a workspace that has none', async () => {
    const r = await load('');
    expect(r.ok && r.workspace.notify).toBeUndefined();
  });

  it('reports each mistake at its line and column, saying what was expected', async () => {
    expect(
      await issues(`notify:
  link: ftp://console
  timeout: 2m
  attempts: 0
  targets:
    - kind: pager
      url: https://x
    - kind: webhook
      url: https://x
    - kind: slack
      url_env: lower-case
      extra: 1
`),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:9: notify.link: expected an http:// or https:// URL without a #fragment, found "ftp://console"; e.g. link: https://console.example.com/",
        "workspace.yaml:4:12: notify.timeout: expected a duration such as 5s, above 0 and at most 30s, found "2m"; e.g. timeout: 5s",
        "workspace.yaml:5:13: notify.attempts: expected a whole number from 1 to 10, found number 0; e.g. attempts: 4",
        "workspace.yaml:7:13: notify.targets[0].kind: expected a target whose kind is webhook, ntfy or slack, found "pager"; e.g. kind: webhook",
        "workspace.yaml:9:7: notify.targets[1].secret_env: missing; expected the name of an environment variable; e.g. secret_env: HOOK_SECRET",
        "workspace.yaml:12:16: notify.targets[2].url_env: expected the name of an environment variable such as HOOK_SECRET, found "lower-case"; e.g. url_env: SLACK_WEBHOOK_URL",
        "workspace.yaml:13:7: notify.targets[2]: expected only the keys kind, url_env, name, include_args; unknown key "extra"; e.g. targets: [{ kind: webhook, url: "https://hooks.example.com/harness", secret_env: HOOK_SECRET }]",
      ]
    `);
  });

  it('refuses two targets with one name', async () => {
    expect(
      await issues(`notify:
  targets:
    - kind: ntfy
      url: https://ntfy.sh/a
    - kind: ntfy
      url: https://ntfy.sh/b
      name: ntfy
`),
    ).toEqual([
      'workspace.yaml:8:13: notify.targets[1]: the name "ntfy" is taken by notify.targets[0]; give each target its own name',
    ]);
  });

  it('warns of a variable a target names that is not set here, naming the variable and the target', async () => {
    const r = await load(
      `notify:
  targets:
    - kind: webhook
      url: https://hooks.example.com/
      secret_env: HOOK_SECRET
    - kind: ntfy
      url: https://ntfy.sh/a
      token_env: NTFY_TOKEN
`,
      { env: { NTFY_TOKEN: 'tk' } },
    );
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.warnings.map((w) => [w.code, w.details, formatIssue(w)])).toEqual([
      [
        'notify_env_unset',
        { target: 'webhook', env: 'HOOK_SECRET' },
        'workspace.yaml:6:19: notify.targets[0].secret_env: the environment variable HOOK_SECRET is not set here, so target "webhook" cannot be sent to from this process; set HOOK_SECRET in the environment the broker (harness serve) starts in',
      ],
    ]);
    expect(r.workspace.notify?.targets).toHaveLength(2);
  });
});
