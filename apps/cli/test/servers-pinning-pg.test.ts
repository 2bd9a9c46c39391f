// Pinned tool definitions on PostgreSQL, shared by every host (docs/servers.md, "Pinned
// definitions"): two instances on one schema, as two hosts are. A definition a person accepts on one
// host is served by the other's running broker; a rug pull one host sees is quarantined there until a
// person accepts its exact hash, on either host; each decision is in the one chain, which verifies.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initInstance, postgresTargetFromEnv } from '@harness/host';
import { until } from '@harness/test-utils';
import { describePg, dropSchema, PG_TEST_ENV, pgQuery, uniqueSchema } from '@harness/test-utils/pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acceptServers, appDir, connectStdio, get, loomBin, runCli, sandbox, structured } from './helpers';

const fixture = join(appDir, 'test', 'fixtures', 'servers', 'rug-server.mjs');

describePg('pinned tool definitions on PostgreSQL, shared by two hosts', () => {
  const box = sandbox();
  const schema = uniqueSchema('pins');
  const target = postgresTargetFromEnv({ env: PG_TEST_ENV, schema });
  const workspace = join(box.root, 'workspace.yaml');
  const releaseFile = join(box.root, 'rug-release');
  const hostA = join(box.root, 'host-a');
  const hostB = join(box.root, 'host-b');
  const text = `mcp_servers:
  - id: rug
    sandbox: false
    transport:
      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(fixture)}]
      env: { RELEASE_FILE: ${JSON.stringify(releaseFile)} }
    tools: { release: { effects: read } }
agents:
  - id: coder
    grants: [server:rug]
`;
  let session: Awaited<ReturnType<typeof connectStdio>>;
  const onB = (args: string[]) =>
    runCli([...args, '--workspace', workspace, '--instance', hostB], { home: box.home });
  const names = async () => {
    const listed = structured(await session.client.callTool({ name: 'list_commands', arguments: {} }));
    return (get(listed, 'entries') as { name: string; description?: string }[]).filter((e) =>
      e.name.startsWith('rug.'),
    );
  };

  beforeAll(async () => {
    mkdirSync(box.home, { recursive: true });
    writeFileSync(releaseFile, '1');
    writeFileSync(workspace, text);
    for (const dir of [hostA, hostB]) await initInstance(dir, workspace, { store: target });
    await acceptServers(['rug'], workspace, hostB, box.home);
    session = await connectStdio(
      ['--workspace', workspace, '--instance', hostA, '--agent', 'coder'],
      box.home,
    );
  }, 90_000);
  afterAll(async () => {
    await session?.close();
    box.cleanup();
    await dropSchema(schema);
  });

  it('serves on one host the definitions a person accepted on the other, from the one store [SV-18]', async () => {
    const rows = await pgQuery(
      'SELECT tool, via FROM tool_pins WHERE server = $1 ORDER BY tool',
      ['rug'],
      schema,
    );
    expect(rows).toEqual([
      { tool: 'delete_branch', via: 'cli' },
      { tool: 'release', via: 'cli' },
      { tool: 'send', via: 'cli' },
    ]);
    expect((await names()).map((e) => e.name)).toEqual(['rug.send', 'rug.delete_branch', 'rug.release']);
  });

  it('quarantines on the host that saw a rug pull until a person on the other accepts its exact hash [SV-18] [SV-19]', async () => {
    const released = structured(
      await session.client.callTool({ name: 'run_command', arguments: { command: 'rug.release', args: {} } }),
    );
    expect(get(released, 'entry', 'value', 'text')).toBe('release: done');
    await until(
      async () => !(await names()).some((e) => e.name === 'rug.send'),
      'rug.send to be quarantined',
    );
    const sighted = await pgQuery(
      `SELECT tool FROM tool_sightings s WHERE server = $1 AND NOT EXISTS
         (SELECT 1 FROM tool_pins p WHERE p.server = s.server AND p.tool = s.tool AND p.hash = s.hash) ORDER BY tool`,
      ['rug'],
      schema,
    );
    expect(sighted.map((r) => r.tool)).toEqual(['added', 'send']);

    const review = await onB(['servers', 'review', 'rug', '--json']);
    expect(review.code, review.stderr).toBe(0);
    const held = JSON.parse(review.stdout).quarantined as { id: string; hash: string; change: string }[];
    expect(held.map((h) => [h.id, h.change])).toEqual([
      ['rug.send', 'changed'],
      ['rug.added', 'new'],
    ]);
    const send = held.find((h) => h.id === 'rug.send')?.hash ?? '';
    const stale = await onB(['servers', 'accept', 'rug.send', '--hash', '0'.repeat(64)]);
    expect(stale.code).not.toBe(0);
    expect((await names()).some((e) => e.name === 'rug.send')).toBe(false);

    const accepted = await onB(['servers', 'accept', 'rug.send', '--hash', send]);
    expect(accepted.code, accepted.stderr).toBe(0);
    await until(
      async () =>
        (await names()).find((e) => e.name === 'rug.send')?.description?.includes('Ignore previous'),
      'rug.send served on host A with its accepted words',
    );
    expect((await names()).some((e) => e.name === 'rug.added')).toBe(false);
  });

  it('records every decision of both hosts in the one chain, which verifies [SV-19]', async () => {
    const rows = await pgQuery(
      "SELECT action, payload FROM audit WHERE phase = 'pin' ORDER BY seq",
      [],
      schema,
    );
    const decisions = rows.map((r) => {
      const payload = JSON.parse(String(r.payload)) as { tool: string; via: string };
      return `${r.action} ${payload.tool} ${payload.via}`;
    });
    expect(decisions).toEqual([
      'server:tool_accepted send cli',
      'server:tool_accepted delete_branch cli',
      'server:tool_accepted release cli',
      'server:tool_accepted send cli',
    ]);
    for (const instance of [hostA, hostB]) {
      execFileSync(process.execPath, [loomBin, 'audit', 'verify', '--instance', instance], {
        env: { ...process.env, HOME: box.home },
        encoding: 'utf8',
      });
    }
  });
});
