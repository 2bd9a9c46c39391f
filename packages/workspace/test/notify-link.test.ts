// `notify.link` is sent to every notify target, so it must never carry a console login token: a
// `token` query parameter in it (any case, anywhere in the query) is a load error saying to remove
// it and why, never echoing the token.

import { formatIssue } from '@harness/packs';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../src/index';

const SECRET = 'operator-token-0123456789abcdef0123456789';

function workspace(link: string): string {
  return `version: 1
notify:
  link: ${JSON.stringify(link)}
  targets:
    - kind: ntfy
      url: https://ntfy.sh/approvals
command_packs:
  - id: notes
    permission: strict
    commands:
      - id: write
        argv: [echo, 'note:{{line}}']
        effects: write
`;
}

async function load(link: string) {
  return loadWorkspace({ text: workspace(link), file: 'workspace.yaml' }, { probe: false });
}

describe('notify.link', () => {
  it('refuses a link carrying a token query parameter, saying to remove it and why, without the token [SEC-28]', async () => {
    const r = await load(`https://console.example.org/?token=${SECRET}`);
    if (r.ok) throw new Error('expected the load to fail');
    const shown = r.issues.map(formatIssue);
    expect(shown).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:9: notify.link carries a "token" query parameter: remove it, and give the console's address alone (e.g. https://console.example.org/). Every target is sent this link, so a login token in it would reach each target's service, logs and readers, and let any of them sign in to the console and decide approvals; a person signs in with their passkey, or with the link \`harness console\` prints",
      ]
    `);
    expect(shown.join('\n')).not.toContain(SECRET);
  });

  it('finds the parameter in any case and anywhere in the query [SEC-28]', async () => {
    for (const link of [
      `https://console.example.org/?TOKEN=${SECRET}`,
      `https://console.example.org/?a=1&Token=${SECRET}&b=2`,
      `http://127.0.0.1:8787/?x=&token=`,
      `https://console.example.org/?%74oken=${SECRET}`,
    ]) {
      const r = await load(link);
      expect(r.ok ? `${link} loaded` : r.issues.map((i) => i.path.join('.'))).toEqual(['notify.link']);
    }
  });

  it('keeps the console address alone, and other query parameters [SEC-28]', async () => {
    for (const link of ['https://console.example.org/', 'https://console.example.org/?tokens=1&my_token=2']) {
      const r = await load(link);
      if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
      expect(r.workspace.notify?.link).toBe(link);
    }
  });
});
