// The real MCP servers from npm the issue names, each governed through harness serve by the same
// steps: its listing, a declared read run unattended, a write held for a person and run once, a
// refusal by tier, and its audit rows in a chain that verifies. server-everything also shows a call
// whose server is killed mid-call: the answer may have landed, and the next call starts it again.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import {
  EVERYTHING,
  FILESYSTEM,
  installServer,
  LINUX,
  MEMORY,
  needs,
  POSTGRES_SERVER,
  processesWith,
  sandboxMechanism,
  until,
} from '@harness/test-utils';
import { PG_TEST_ENV, POSTGRES } from '@harness/test-utils/pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acceptServers, connectStdio, get, loomBin, runCli, sandbox, structured } from './helpers';

const pins = [EVERYTHING, FILESYSTEM, MEMORY, POSTGRES_SERVER];
const entries = await Promise.all(pins.map((p) => installServer(p)));
const entry = (i: number): string => {
  const e = entries[i];
  return JSON.stringify(e?.ok ? e.entry : '/missing');
};
const installed = {
  what: 'the pinned MCP servers installed from the npm registry',
  present: entries.every((e) => e.ok),
  install: 'npm must reach the registry (the tests install the servers into ~/.cache/harness-mcp-servers)',
};

const box = sandbox();
const workspace = join(box.root, 'workspace.yaml');
const node = JSON.stringify(process.execPath);
// Kept outside /tmp (private inside a sandbox) and outside the home (hidden there): the memory
// server's file, in a folder only it may write.
const memoryDir = join(
  dirname(dirname(entries[2]?.ok ? entries[2].entry : '/x')),
  '..',
  `harness-test-memory-${process.pid}`,
);
// The server to kill runs from a path of its own, so its process is found by that path alone.
const marker = join(box.root, `victim-${process.pid}`);
const pgUrl = `postgresql://${PG_TEST_ENV.PGUSER}@${PG_TEST_ENV.PGHOST}:${PG_TEST_ENV.PGPORT}/${PG_TEST_ENV.PGDATABASE}`;

const text = (): string => `mcp_servers:
  - id: everything
    transport: { command: [${node}, ${entry(0)}] }
    tools: { echo: { effects: read } }
    permission_overrides: { get-env: readonly }
  - id: victim
    sandbox: false
    permission: open
    transport: { command: [${node}, ${JSON.stringify(join(marker, 'dist', 'index.js'))}] }
  - id: fs
    transport: { command: [${node}, ${entry(1)}, ${JSON.stringify(memoryDir)}] }
    sandbox: { filesystem: { write: [${JSON.stringify(memoryDir)}] } }
    tools: { list_allowed_directories: { effects: read } }
    permission_overrides: { move_file: readonly }
  - id: memory
    transport:
      command: [${node}, ${entry(2)}]
      env: { MEMORY_FILE_PATH: ${JSON.stringify(join(memoryDir, 'memory.jsonl'))} }
    sandbox: { filesystem: { write: [${JSON.stringify(memoryDir)}] } }
    tools: { read_graph: { effects: read } }
    permission_overrides: { delete_entities: readonly }
  - id: postgres
    transport: { command: [${node}, ${entry(3)}, ${JSON.stringify(pgUrl)}] }
    sandbox: { network: host }
    tools: { query: { effects: read } }
agents:
  - id: coder
    grants: [server:everything, server:victim, server:fs, server:memory, server:postgres]
`;

/** Per server: a declared read, a write held then approved, a tool its tier refuses. */
const cases = [
  {
    server: 'everything',
    read: ['echo', { message: 'hi' }, 'Echo: hi'],
    write: ['get-sum', { a: 2, b: 3 }, 'The sum of 2 and 3 is 5.'],
    denied: ['get-env', {}],
  },
  {
    server: 'fs',
    read: ['list_allowed_directories', {}, 'Allowed directories:'],
    write: [
      'write_file',
      { path: join(memoryDir, 'note.txt'), content: 'from the agent' },
      'Successfully wrote',
    ],
    denied: ['move_file', { source: join(memoryDir, 'note.txt'), destination: join(memoryDir, 'moved.txt') }],
  },
  {
    server: 'memory',
    read: ['read_graph', {}, '"entities"'],
    write: [
      'create_entities',
      { entities: [{ name: 'ann', entityType: 'person', observations: ['likes tea'] }] },
      '"ann"',
    ],
    denied: ['delete_entities', { entityNames: ['ann'] }],
  },
] as const;

/** The instance's audit rows, as `loom audit tail --json` prints them. */
function auditRows(): { action: string; phase: string; payload: Record<string, unknown> }[] {
  const out = execFileSync(
    process.execPath,
    [loomBin, 'audit', 'tail', '--json', '-n', '500', '--instance', box.instance],
    {
      encoding: 'utf8',
    },
  );
  return (
    JSON.parse(out) as { events: { action: string; phase: string; payload: Record<string, unknown> }[] }
  ).events;
}

needs(installed, LINUX, sandboxMechanism(detectSandbox()), POSTGRES).describe(
  'real MCP servers from npm through harness serve',
  () => {
    let session: Awaited<ReturnType<typeof connectStdio>>;
    const call = async (tool: string, command: string, args: Record<string, unknown>) =>
      structured(await session.client.callTool({ name: tool, arguments: { command, args } }));

    beforeAll(async () => {
      mkdirSync(box.home, { recursive: true });
      mkdirSync(memoryDir, { recursive: true });
      symlinkSync(dirname(dirname(JSON.parse(entry(0)) as string)), marker);
      writeFileSync(workspace, text());
      await acceptServers(
        ['everything', 'victim', 'fs', 'memory', 'postgres'],
        workspace,
        box.instance,
        box.home,
      );
      session = await connectStdio(
        ['--workspace', workspace, '--instance', box.instance, '--agent', 'coder'],
        box.home,
      );
    }, 120_000);
    afterAll(async () => {
      await session?.close();
      execFileSync('rm', ['-rf', memoryDir]);
      box.cleanup();
    });

    it.each(cases)(
      '$server: lists its tools, runs a declared read unattended [SV-05, SV-09]',
      async ({ server, read }) => {
        const listed = get(
          structured(await session.client.callTool({ name: 'list_commands', arguments: {} })),
          'entries',
        ) as {
          name: string;
        }[];
        expect(listed.map((e) => e.name)).toContain(`${server}.${read[0]}`);
        const r = await call('run_read_command', `${server}.${read[0]}`, read[1]);
        expect(get(r, 'outcome')).toMatchObject({ ok: true, mayHaveLanded: false });
        expect(get(r, 'entry', 'value', 'text')).toContain(read[2]);
      },
    );

    it.each(cases)(
      '$server: holds a write for a person and runs it once approved [SV-03, CP-69]',
      async ({ server, write }) => {
        const id = `${server}.${write[0]}`;
        const held = await call('run_command', id, write[1]);
        expect(get(held, 'outcome', 'reason')).toBe('approval_required');
        const approval = get(held, 'entry', 'value', 'approval', 'id') as string;
        const approved = await runCli(['approvals', 'approve', approval, '--instance', box.instance], {
          home: box.home,
        });
        expect(approved.code, approved.stderr).toBe(0);
        const ran = await call('run_command', id, write[1]);
        expect(get(ran, 'outcome')).toMatchObject({ ok: true, mayHaveLanded: true });
        expect(get(ran, 'entry', 'value', 'text')).toContain(write[2]);
      },
    );

    it.each(cases)(
      '$server: refuses a tool its tier makes readonly, sending nothing [SV-06]',
      async ({ server, denied }) => {
        const r = await call('run_command', `${server}.${denied[0]}`, denied[1]);
        expect(get(r, 'outcome')).toMatchObject({ ok: false, mayHaveLanded: false, reason: 'readonly_tier' });
      },
    );

    it('postgres: runs a declared read query against the real PostgreSQL, the server confined but for the network', async () => {
      const r = await call('run_read_command', 'postgres.query', { sql: 'select 40 + 2 as answer' });
      expect(get(r, 'entry', 'value', 'text')).toContain('"answer": 42');
    });

    it('a server killed mid-call leaves the call "may have landed", and the next call starts it again [SV-14]', async () => {
      const pending = call('run_command', 'victim.trigger-long-running-operation', {
        duration: 30,
        steps: 30,
      });
      // The call's start row is committed just before the request goes upstream: once it is in the
      // audit, the server holds the call.
      await until(
        () =>
          auditRows().some(
            (e) => e.phase === 'start' && e.action === 'mcp:call:victim:trigger-long-running-operation',
          ),
        'the call to be on its way upstream',
      );
      expect(processesWith(marker).length).toBeGreaterThan(0);
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
      const r = await pending;
      expect(get(r, 'outcome')).toMatchObject({ ok: false, mayHaveLanded: true, reason: 'died' });
      await until(async () => {
        const next = await call('run_command', 'victim.echo', { message: 'back' });
        return get(next, 'entry', 'value', 'text') === 'Echo: back';
      }, 'the victim server to answer again after its backoff');
    });

    it('records every call of every server in one chain that verifies [CP-25]', async () => {
      const rows = (
        JSON.parse(
          execFileSync(
            process.execPath,
            [loomBin, 'audit', 'tail', '--json', '-n', '500', '--instance', box.instance],
            {
              encoding: 'utf8',
            },
          ),
        ) as { events: { action: string; phase: string; payload: Record<string, unknown> }[] }
      ).events.filter((e) => e.phase === 'run');
      for (const server of ['everything', 'fs', 'memory', 'postgres']) {
        expect(
          rows.some((e) => e.action.startsWith(`mcp:call:${server}:`) && e.payload.provider === 'mcp'),
        ).toBe(true);
      }
      execFileSync(process.execPath, [loomBin, 'audit', 'verify', '--instance', box.instance], {
        encoding: 'utf8',
      });
    });
  },
);
