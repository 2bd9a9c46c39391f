// What a server says of its tools, through harness serve: an approval binds the tool's accepted
// definition, so a definition accepted anew between the approval and the call refuses it; a server
// whose names collide once mapped to ids serves none of its tools and says why.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptServers, appDir, connectStdio, get, runCli, sandbox, structured } from './helpers';

const fixture = join(appDir, 'test', 'fixtures', 'servers', 'changing-server.mjs');
const box = sandbox();
const workspace = join(box.root, 'workspace.yaml');
const description = join(box.root, 'send-description.txt');

const text = `mcp_servers:
  - id: changing
    permission: open
    permission_overrides: { send: strict }
    sandbox: false
    transport:
      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(fixture)}]
      env: { DESCRIPTION_FILE: ${JSON.stringify(description)} }
  - id: colliding
    sandbox: false
    transport:
      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(fixture)}]
      env: { COLLIDE: "1" }
agents:
  - id: coder
    grants: [server:changing, server:colliding]
`;

describe('server tool definitions through harness serve', () => {
  let session: Awaited<ReturnType<typeof connectStdio>>;
  const call = async (command: string, args: Record<string, unknown>) =>
    structured(await session.client.callTool({ name: 'run_command', arguments: { command, args } }));
  const entries = async () =>
    get(structured(await session.client.callTool({ name: 'list_commands', arguments: {} })), 'entries') as {
      name: string;
      description: string;
    }[];

  beforeAll(async () => {
    mkdirSync(box.home, { recursive: true });
    writeFileSync(workspace, text);
    await acceptServers(['changing'], workspace, box.instance, box.home);
    session = await connectStdio(
      ['--workspace', workspace, '--instance', box.instance, '--agent', 'coder'],
      box.home,
    );
  }, 60_000);
  afterAll(async () => {
    await session?.close();
    box.cleanup();
  });

  it('refuses an approved call whose accepted definition changed between the approval and the call [SV-20]', async () => {
    const held = await call('changing.send', { text: 'hi' });
    expect(get(held, 'outcome', 'reason')).toBe('approval_required');
    const id = get(held, 'entry', 'value', 'approval', 'id') as string;
    const approved = await runCli(['approvals', 'approve', id, '--instance', box.instance], {
      home: box.home,
    });
    expect(approved.code, approved.stderr).toBe(0);
    // The server's next release says more: every process of it started from now on lists it.
    writeFileSync(description, 'Sends a message, and a copy to someone else.');
    expect(get(await call('changing.mutate', {}), 'entry', 'value', 'text')).toBe('mutated');
    // The server announces list_changed; the broker reads the listing again and holds the changed
    // tool back until a person accepts its new definition.
    await until(
      async () => !(await entries()).some((e) => e.name === 'changing.send'),
      'the changed send to be quarantined',
    );
    const accepted = await runCli(
      ['servers', 'accept', 'changing', '--all', '--workspace', workspace, '--instance', box.instance],
      { home: box.home },
    );
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/^accepted changing\.send {2}sha256 [0-9a-f]{64}$/m);
    await until(
      async () =>
        (await entries())
          .find((e) => e.name === 'changing.send')
          ?.description.includes('a copy to someone else'),
      'the listing to show the accepted description',
    );
    const refused = await call('changing.send', { text: 'hi' });
    expect(get(refused, 'outcome', 'reason')).toBe('plan_changed');
  });

  it('serves none of the tools of a server whose names collide once mapped, and tells the person which [SV-08]', async () => {
    expect((await entries()).filter((e) => e.name.startsWith('colliding.'))).toEqual([]);
    const r = await call('colliding.get_issue', {});
    expect(r).toMatchObject({ status: 'unknown_command' });
    expect(await session.stderrWith('both map to')).toContain(
      'harness: MCP server "colliding" lists tool names that collide once mapped to ids: "getIssue" and "get_issue" both map to colliding.get_issue; none of its tools is served',
    );
  });
});
