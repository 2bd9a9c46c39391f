// Two real MCP servers from npm governed beside a command pack, through `harness serve` and the real
// MCP SDK client: one list_commands, grants, a declared read run unattended, a write held for a
// person and run once, a tier refusal, the argument check before anything is sent, the audit rows
// and their chain, and a confined server that cannot read what its own check would let it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { EVERYTHING, FILESYSTEM, installServer, LINUX, needs, sandboxMechanism } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acceptServers, connectStdio, get, loomBin, runCli, sandbox, structured } from './helpers';

const everything = await installServer(EVERYTHING);
const filesystem = await installServer(FILESYSTEM);
const installed = {
  what: 'the pinned MCP servers installed from the npm registry',
  present: everything.ok && filesystem.ok,
  install: 'npm must reach the registry (the tests install the servers into ~/.cache/harness-mcp-servers)',
};

const box = sandbox();
const project = join(box.root, 'project');
const workspace = join(project, '.harness', 'workspace.yaml');
const secret = join(box.home, '.ssh', 'id_ed25519');

/** The workspace: a pack; server-everything twice (one with a short timeout, open); server-filesystem confined and not. */
function workspaceText(): string {
  const entry = (s: typeof everything) => JSON.stringify(s.ok ? s.entry : '/missing');
  const node = JSON.stringify(process.execPath);
  const home = JSON.stringify(box.home);
  return `command_packs:
  - id: notes
    commands:
      - { id: show, argv: [cat, notes.txt], effects: read }
mcp_servers:
  - id: everything
    transport:
      command: [${node}, ${entry(everything)}]
      env: { API_TOKEN: "{{credential.api_token}}" }
    credentials_ref: api_token
    tools:
      echo: { effects: read }
      get-env: { effects: read }
    timeout: 20s
  - id: slow
    permission: open
    transport: { command: [${node}, ${entry(everything)}] }
    timeout: 2s
  - id: files
    permission: readonly
    transport: { command: [${node}, ${entry(filesystem)}, ${home}] }
    sandbox: { filesystem: { home: ["~/docs"] } }
    tools:
      read_text_file: { effects: read }
  - id: openfiles
    sandbox: false
    transport: { command: [${node}, ${entry(filesystem)}, ${home}] }
    tools:
      read_text_file: { effects: read }
agents:
  - id: coder
    grants: [pack:notes, server:everything, server:files, openfiles.read_text_file, slow.trigger-long-running-operation, slow.echo]
  - id: other
    grants: [pack:notes]
`;
}

const TOKEN = 'tok-4f1d8e2b9c7a6350';

/** The instance's audit rows, as `loom audit tail --json` prints them. */
function auditRows(): Record<string, unknown>[] {
  const text = execFileSync(
    process.execPath,
    [loomBin, 'audit', 'tail', '--json', '-n', '200', '--instance', box.instance],
    {
      encoding: 'utf8',
    },
  );
  return (JSON.parse(text) as { events: Record<string, unknown>[] }).events;
}

needs(installed, LINUX, sandboxMechanism(detectSandbox())).describe(
  'MCP servers governed through harness serve',
  () => {
    let session: Awaited<ReturnType<typeof connectStdio>>;
    const call = async (
      tool: 'run_read_command' | 'run_command',
      command: string,
      args: Record<string, unknown>,
    ) => structured(await session.client.callTool({ name: tool, arguments: { command, args } }));
    const names = async (s: typeof session) =>
      (
        get(structured(await s.client.callTool({ name: 'list_commands', arguments: {} })), 'entries') as {
          name: string;
        }[]
      ).map((e) => e.name);

    beforeAll(async () => {
      mkdirSync(join(project, '.harness'), { recursive: true });
      mkdirSync(join(box.home, '.ssh'), { recursive: true });
      writeFileSync(workspace, workspaceText());
      // The instance is made by a first call; the credential is added to it as a person would.
      const created = await runCli(
        ['call', 'list_commands', '--instance', box.instance, '--workspace', workspace, '--agent', 'coder'],
        { home: box.home },
      );
      expect(created.code, created.stderr).toBe(0);
      writeFileSync(join(box.instance, 'credentials.json'), JSON.stringify({ api_token: TOKEN }), {
        mode: 0o600,
      });
      writeFileSync(secret, 'PRIVATE KEY\n');
      mkdirSync(join(box.home, 'docs'), { recursive: true });
      writeFileSync(join(box.home, 'docs', 'readme.txt'), 'shared notes\n');
      writeFileSync(join(project, 'notes.txt'), 'a note\n');
      writeFileSync(workspace, workspaceText());
      await acceptServers(['everything', 'slow', 'files', 'openfiles'], workspace, box.instance, box.home);
      session = await connectStdio(
        ['--workspace', workspace, '--instance', box.instance, '--agent', 'coder'],
        box.home,
      );
    }, 120_000);
    afterAll(async () => {
      await session?.close();
      box.cleanup();
    });

    it("lists pack commands and two servers' tools in one list_commands, each tool a signature in the server's words [CP-64]", async () => {
      const listed = structured(await session.client.callTool({ name: 'list_commands', arguments: {} }));
      const entries = get(listed, 'entries') as {
        name: string;
        signature: string;
        description: string;
        readOnlyGranted?: boolean;
      }[];
      const echo = entries.find((e) => e.name === 'everything.echo');
      expect(echo).toMatchObject({
        signature: 'everything.echo(message: string)  [read, global]',
        readOnlyGranted: true,
        description: 'MCP server says: Echoes back the input string',
      });
      // The server's title is more of its words, unmarked: not listed.
      expect(echo).not.toHaveProperty('title');
      expect(entries.find((e) => e.name === 'everything.get-sum')?.signature).toMatch(
        /^everything\.get-sum\(a: number, b: number\)\s+\[write, global\]$/,
      );
      expect(entries.map((e) => e.name)).toEqual(
        expect.arrayContaining([
          'notes.show',
          'everything.echo',
          'files.read_text_file',
          'files.write_file',
          'openfiles.read_text_file',
        ]),
      );
    });

    it('lists and runs no tool the agent holds no grant for [SV-09, CP-69]', async () => {
      const listed = await names(session);
      // One tool of openfiles is granted by name; its other tools are not.
      expect(listed).not.toContain('openfiles.write_file');
      expect(listed.filter((n) => n.startsWith('slow.'))).toEqual([
        'slow.echo',
        'slow.trigger-long-running-operation',
      ]);
      const refused = await call('run_command', 'openfiles.write_file', {
        path: join(box.home, 'x.txt'),
        content: 'x',
      });
      expect(refused).toMatchObject({ status: 'unknown_command' });
      expect(existsSync(join(box.home, 'x.txt'))).toBe(false);
      const other = await connectStdio(
        ['--workspace', workspace, '--instance', join(box.root, 'instance-other'), '--agent', 'other'],
        box.home,
      );
      try {
        expect(
          (await names(other)).filter(
            (n) => n.includes('.') && !n.startsWith('notes.') && !n.startsWith('loom.'),
          ),
        ).toEqual([]);
      } finally {
        await other.close();
      }
    });

    it('runs a tool the owner declared read without asking, its text as the answer [SV-05, SV-10]', async () => {
      const r = await call('run_read_command', 'everything.echo', { message: 'hello through harness' });
      expect(get(r, 'outcome')).toMatchObject({ ok: true, code: 'ok', mayHaveLanded: false });
      expect(get(r, 'entry', 'value')).toMatchObject({
        server: 'everything',
        tool: 'echo',
        status: 'ok',
        text: 'Echo: hello through harness',
      });
    });

    it('refuses run_read_command of a tool not declared read, whatever the server annotates [SV-10, SV-07]', async () => {
      const r = await call('run_read_command', 'everything.get-sum', { a: 1, b: 2 });
      expect(r).toMatchObject({ status: 'not_granted', reasonCode: 'effect_not_read', landed: 'no' });
    });

    it('holds a write for a person, runs the identical call once when approved, and asks again after [SV-03, CP-69]', async () => {
      const held = await call('run_command', 'everything.get-sum', { a: 20, b: 22 });
      expect(get(held, 'outcome', 'reason')).toBe('approval_required');
      const id = get(held, 'entry', 'value', 'approval', 'id') as string;
      const approved = await runCli(['approvals', 'approve', id, '--instance', box.instance], {
        home: box.home,
      });
      expect(approved.code, approved.stderr).toBe(0);
      const ran = await call('run_command', 'everything.get-sum', { a: 20, b: 22 });
      expect(get(ran, 'outcome')).toMatchObject({ ok: true, mayHaveLanded: true });
      expect(get(ran, 'entry', 'value', 'text')).toBe('The sum of 20 and 22 is 42.');
      const again = await call('run_command', 'everything.get-sum', { a: 20, b: 22 });
      expect(get(again, 'outcome', 'reason')).toBe('approval_required');
    });

    it('refuses every tool of a readonly server but its declared reads, and nothing reaches the server [SV-06]', async () => {
      const target = join(box.home, 'written.txt');
      const r = await call('run_command', 'files.write_file', { path: target, content: 'x' });
      expect(get(r, 'outcome')).toMatchObject({ ok: false, mayHaveLanded: false, reason: 'readonly_tier' });
      expect(existsSync(target)).toBe(false);
    });

    it("checks the arguments against the tool's inputSchema before anything is sent [SV-13]", async () => {
      const before = auditRows().length;
      const r = await call('run_read_command', 'everything.echo', { message: 5 });
      expect(get(r, 'outcome', 'code')).toBe('bad-args');
      const rows = auditRows().slice(before);
      expect(rows.some((e) => e.phase === 'start')).toBe(false);
    });

    it("a confined server cannot read the person's keys that its own check allows; unconfined, the same server does [SV-12]", async () => {
      // What the owner lets it see, it reads; the key beside it is not there for it.
      const shared = await call('run_read_command', 'files.read_text_file', {
        path: join(box.home, 'docs', 'readme.txt'),
      });
      expect(get(shared, 'entry', 'value', 'text')).toBe('shared notes\n');
      const confined = await call('run_read_command', 'files.read_text_file', { path: secret });
      expect(get(confined, 'entry', 'value', 'status')).toBe('tool_error');
      expect(get(confined, 'entry', 'value', 'text')).toContain('ENOENT');
      // The attack without the wall: the same server, unconfined, reads the key.
      const open = await call('run_read_command', 'openfiles.read_text_file', { path: secret });
      expect(get(open, 'entry', 'value', 'text')).toBe('PRIVATE KEY\n');
    });

    it("gives a server its env with the credential and nothing of the broker's, and redacts the credential from its answer [SV-11, SV-12]", async () => {
      const r = await call('run_read_command', 'everything.get-env', {});
      const text = get(r, 'entry', 'value', 'text') as string;
      // Its whole environment: PATH, HOME, its working directory and its own env, the credential
      // filled in (and swept out of the answer); nothing else of the broker's.
      expect(Object.keys(JSON.parse(text))).toEqual(['PATH', 'HOME', 'PWD', 'API_TOKEN']);
      expect(text).not.toContain(TOKEN);
      expect(JSON.parse(text).API_TOKEN).toBe('[redacted]');
    });

    it("cancels a call past the server's timeout upstream; the answer says it timed out and may have landed, and the server answers the next call [SV-14]", async () => {
      const r = await call('run_command', 'slow.trigger-long-running-operation', { duration: 30, steps: 30 });
      expect(get(r, 'outcome')).toMatchObject({ ok: false, mayHaveLanded: true, reason: 'timeout' });
      const next = await call('run_command', 'slow.echo', { message: 'still here' });
      expect(get(next, 'entry', 'value', 'text')).toBe('Echo: still here');
    });

    it('records each call as mcp:call:<server>:<tool> with provider mcp, its start before it, in a chain that verifies [CP-21, CP-25]', async () => {
      await call('run_read_command', 'everything.echo', { message: 'audited' });
      const rows = auditRows();
      const run = rows.filter((e) => e.command === 'everything.echo' && e.phase === 'run').at(-1);
      expect(run?.action).toBe('mcp:call:everything:echo');
      expect(run?.payload).toMatchObject({
        provider: 'mcp',
        container: 'everything',
        member: 'echo',
        effects: 'read',
      });
      expect(get(run?.payload, 'upstream', 'status')).toBe('ok');
      const callId = get(run?.payload, 'call_id');
      expect(rows.some((e) => e.phase === 'start' && get(e.payload, 'call_id') === callId)).toBe(true);
      const verify = execFileSync(
        process.execPath,
        [loomBin, 'audit', 'verify', '--instance', box.instance],
        {
          encoding: 'utf8',
        },
      );
      expect(verify).toMatch(/ok|verified/i);
    });
  },
);
