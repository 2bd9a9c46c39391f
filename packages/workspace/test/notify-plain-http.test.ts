// A notify target that sends a bearer token (ntfy's token_env) sends it in the Authorization header
// of every notice, as written: packages/host/test/notify.test.ts receives `Bearer tk_ntfy_secret`
// over plain http:// on loopback. To another host over plain http:// that header crosses the network
// in clear, so such a target does not load; https://, loopback, or no token do.

import { formatIssue } from '@harness/packs';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../src/index';

function workspace(target: string): string {
  return `version: 1
notify:
  targets:
    - ${target}
command_packs:
  - id: notes
    permission: strict
    commands:
      - { id: write, argv: [echo, 'note:{{line}}'], effects: write }
`;
}

const load = (target: string) =>
  loadWorkspace(
    { text: workspace(target), file: 'workspace.yaml' },
    { probe: false, env: { NTFY_TOKEN: 't' } },
  );

describe('notify targets over plain http', () => {
  it('refuses an ntfy target that would send its token over plain http:// to another host, naming the fix [SEC-28]', async () => {
    const r = await load('{ kind: ntfy, url: "http://ntfy.example.org/approvals", token_env: NTFY_TOKEN }');
    if (r.ok) throw new Error('expected the load to fail');
    expect(r.issues.map(formatIssue)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:26: notify.targets[0].url is plain http:// to another host, and the target sends the bearer token in NTFY_TOKEN with every notice: anyone on the way would read it. Use https://, or a loopback address for a server on this machine",
      ]
    `);
  });

  it('loads the same target over https://, over http:// to loopback, and over http:// without a token [SEC-28]', async () => {
    for (const target of [
      '{ kind: ntfy, url: "https://ntfy.example.org/approvals", token_env: NTFY_TOKEN }',
      '{ kind: ntfy, url: "http://127.0.0.1:8080/approvals", token_env: NTFY_TOKEN }',
      '{ kind: ntfy, url: "http://[::1]:8080/approvals", token_env: NTFY_TOKEN }',
      '{ kind: ntfy, url: "http://localhost:8080/approvals", token_env: NTFY_TOKEN }',
      '{ kind: ntfy, url: "http://ntfy.example.org/approvals" }',
    ]) {
      const r = await load(target);
      expect(r.ok ? [] : r.issues.map(formatIssue), target).toEqual([]);
    }
  });
});
