// What a server says of its tools, through harness serve: an approval binds the tool's definition as
// listed, so a definition that changes between the approval and the call refuses it; a server whose
// names collide once mapped to ids serves none of its tools and says why.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDir, connectStdio, get, runCli, sandbox, structured } from './helpers';

const fixture = join(appDir, 'test', 'fixtures', 'servers', 'changing-server.mjs');
const box = sandbox();
const workspace = join(box.root, 'workspace.yaml');

const text = `mcp_servers:
  - id: changing
    permission: open
    permission_overrides: { send: strict }
    sandbox: false
    transport: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(fixture)}] }
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
    session = await connectStdio(
      ['--workspace', workspace, '--instance', box.instance, '--agent', 'coder'],
      box.home,
    );
  }, 60_000);
  afterAll(async () => {
    await session?.close();
    box.cleanup();
  });

  it('refuses an approved call whose tool definition changed between the approval and the call [SV-20]', async () => {
    const held = await call('changing.send', { text: 'hi' });
    expect(get(held, 'outcome', 'reason')).toBe('approval_required');
    const id = get(held, 'entry', 'value', 'approval', 'id') as string;
    const approved = await runCli(['approvals', 'approve', id, '--instance', box.instance], {
      home: box.home,
    });
    expect(approved.code, approved.stderr).toBe(0);
    expect(get(await call('changing.mutate', {}), 'entry', 'value', 'text')).toBe('mutated');
    // The server announces list_changed; the broker reads the listing again.
    await until(
      async () =>
        (await entries())
          .find((e) => e.name === 'changing.send')
          ?.description.includes('a copy to someone else'),
      'the listing to show the changed description',
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
