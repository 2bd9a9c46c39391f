// `harness servers list|logs`, and the server rows of `harness doctor` and `harness packs check`,
// against real server processes: the pinned server-everything (installed once into a cache outside
// the repository) and the tiny fixture that exits at once, saying why on stderr.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { EVERYTHING, installServer, LINUX, needs, processesWith } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acceptServers, appDir, runCli, sandbox } from './helpers';

const installed = await installServer(EVERYTHING);
const everything = needs(LINUX, {
  what: `${EVERYTHING.name}@${EVERYTHING.version} installed`,
  present: installed.ok,
  install: installed.ok ? '' : `${installed.reason} (needs npm and the registry once)`,
});
const entry = installed.ok ? installed.entry : '';
const exitServer = join(appDir, '..', '..', 'packages', 'servers', 'test', 'fixtures', 'exit-server.mjs');

// A unique word in every server argv: whatever runs with it after a command is left behind.
const marker = `servers-cli-${randomUUID()}`;
const box = sandbox();
afterAll(() => box.cleanup());

const found = detectSandbox();
/** The confinement line of a default stdio server here (SV-12). */
const confined = found.available
  ? `  confined by ${found.mechanism === 'bwrap' ? 'bubblewrap' : 'sandbox-exec'} (network none; writable: nothing)`
  : `  unconfined: `;

const everythingEntry = `  - id: everything
    transport:
      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(entry)}, stdio, ${marker}]
      env: { EVERYTHING_TOKEN: env-value-never-shown }
    tools:
      echo: { effects: read }
      no-such-tool: { effects: read }
    permission_overrides: { get-sum: strict }
`;
const agents = `agents:
  - id: coder
    grants: [server:everything]
  - id: reviewer
    grants: [everything.echo]
`;

/** Writes a workspace file of these servers and the two agents; its path. */
function workspace(name: string, servers: string): string {
  const dir = join(box.root, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'workspace.yaml');
  writeFileSync(file, `mcp_servers:\n${servers}${agents}`);
  return file;
}

let healthy: string;
let mixed: string;
beforeAll(async () => {
  healthy = workspace('healthy', everythingEntry);
  mixed = workspace(
    'mixed',
    `${everythingEntry}  - id: broken
    transport: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(exitServer)}, ${marker}] }
  - id: remote
    permission: readonly
    transport: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer header-value-never-shown" } }
`,
  );
  // The instances whose listings these tests read in full: a person accepted the server's tools.
  for (const [file, name] of [
    [healthy, 'i1'],
    [mixed, 'i3'],
    [healthy, 'i4'],
    [mixed, 'i6'],
  ] as const)
    await acceptServers(['everything'], file, join(box.root, name), box.home);
}, 60_000);

const run = (args: string[]) => runCli(args, { home: box.home });
const argv = `${process.execPath} ${entry} stdio ${marker}`;

everything.describe('harness servers list', () => {
  it('starts each server, prints its tools with the signature the model reads, their effect, tier and granted agents, and leaves no server running', async () => {
    const r = await run(['servers', 'list', '--workspace', healthy, '--instance', join(box.root, 'i1')]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `everything  stdio: ${argv} (env EVERYTHING_TOKEN)`,
      '  state: ready, 13 tool(s)',
      expect.stringContaining(confined),
      '  tier: cautious',
    ]);
    expect(lines).toContain(
      '  everything.echo(message: string)  [read, global]  effect read, tier cautious, granted to coder, reviewer',
    );
    expect(lines).toContain(
      '  everything.get-sum(a: number, b: number)  [write, global]  effect write, tier strict, granted to coder',
    );
    expect(lines).toContain(
      '  warning: MCP server "everything": tools/permission_overrides name "no-such-tool", which it does not list; it offers: echo, get-annotated-message, get-env, get-resource-links, get-resource-reference, get-structured-content, get-sum, get-tiny-image, gzip-file-as-resource, toggle-simulated-logging, toggle-subscriber-updates, trigger-long-running-operation, simulate-research-query',
    );
    expect(lines.at(-2)).toBe('(1 server(s): 1 ready, 0 failed; 13 tool(s))');
    expect(r.stdout).not.toContain('env-value-never-shown');
    expect(processesWith(marker)).toEqual([]);
  });

  it('shows confinement per server: a stdio server confined by the sandbox found here, an HTTP server unconfined and why [SV-12]', async () => {
    const r = await run(['servers', 'list', '--workspace', mixed, '--instance', join(box.root, 'i2')]);
    const lines = r.stdout.split('\n');
    const at = (id: string) => lines.findIndex((l) => l.startsWith(`${id}  `));
    expect(lines[at('everything') + 2]).toMatch(new RegExp(`^${regexpOf(confined)}`));
    expect(lines[at('broken') + 2]).toMatch(new RegExp(`^${regexpOf(confined)}`));
    expect(lines[at('remote') + 2]).toBe(
      '  unconfined: an HTTP server runs outside harness; harness does not confine it',
    );
  });

  it('names a server that fails to start and its error, still lists the others, and exits 1', async () => {
    const r = await run(['servers', 'list', '--workspace', mixed, '--instance', join(box.root, 'i3')]);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(
      '  everything.echo(message: string)  [read, global]  effect read, tier cautious, granted to coder, reviewer',
    );
    const broken = lines.indexOf(`broken  stdio: ${process.execPath} ${exitServer} ${marker}`);
    expect(broken).toBeGreaterThan(0);
    expect(lines.slice(broken + 1, broken + 4)).toEqual([
      '  state: failed: server broken exited with code 3; last stderr: exit-server: config file /etc/nowhere.toml not found before it was ready',
      expect.stringContaining(confined),
      '  tier: cautious',
    ]);
    const remote = lines.indexOf('remote  http: http://127.0.0.1:9 (headers Authorization)');
    expect(lines[remote + 1]).toMatch(/^ {2}state: failed: server remote failed to start: /);
    expect(lines[remote + 3]).toBe('  tier: readonly');
    expect(lines.at(-2)).toBe('(3 server(s): 1 ready, 2 failed; 13 tool(s))');
    expect(r.stdout).not.toContain('header-value-never-shown');
    expect(processesWith(marker)).toEqual([]);
  });

  it('lists only the tools an agent is granted with --agent, byte for byte', async () => {
    const r = await run([
      'servers',
      'list',
      '--workspace',
      healthy,
      '--instance',
      join(box.root, 'i4'),
      '--agent',
      'reviewer',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [, , confinement] = r.stdout.split('\n');
    expect(r.stdout).toBe(
      [
        `everything  stdio: ${argv} (env EVERYTHING_TOKEN)`,
        '  state: ready, 1 tool(s) granted to reviewer',
        confinement,
        '  tier: cautious',
        '  everything.echo(message: string)  [read, global]  effect read, tier cautious, granted to coder, reviewer',
        '  warning: MCP server "everything": tools/permission_overrides name "no-such-tool", which it does not list; it offers: echo, get-annotated-message, get-env, get-resource-links, get-resource-reference, get-structured-content, get-sum, get-tiny-image, gzip-file-as-resource, toggle-simulated-logging, toggle-subscriber-updates, trigger-long-running-operation, simulate-research-query',
        '(1 server(s): 1 ready, 0 failed; 1 tool(s) granted to reviewer)',
        '',
      ].join('\n'),
    );
  });

  it('refuses an agent the workspace does not declare, naming its agents, exit 2', async () => {
    const r = await run([
      'servers',
      'list',
      '--workspace',
      healthy,
      '--instance',
      join(box.root, 'i5'),
      '--agent',
      'nobody',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--agent nobody: the workspace');
    expect(r.stderr).toContain('its agents: coder, reviewer');
    expect(processesWith(marker)).toEqual([]);
  });

  it('prints the same as JSON with --json: transport without values, state, error, confinement, tier, tools', async () => {
    const r = await run([
      'servers',
      'list',
      '--workspace',
      mixed,
      '--instance',
      join(box.root, 'i6'),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({ ok: false, workspace: mixed });
    expect(json.instance).toBe(join(box.root, 'i6'));
    const [ev, broken, remote] = json.servers;
    expect(ev).toMatchObject({
      id: 'everything',
      transport: {
        kind: 'stdio',
        command: [process.execPath, entry, 'stdio', marker],
        env: ['EVERYTHING_TOKEN'],
      },
      state: 'ready',
      confinement: found.available ? { confined: true, network: 'none', write: [] } : { confined: false },
      tier: 'cautious',
      warning: expect.stringContaining('"no-such-tool"'),
    });
    expect(ev.error).toBeUndefined();
    expect(ev.tools).toHaveLength(13);
    expect(ev.tools[0]).toEqual({
      id: 'everything.echo',
      upstream: 'echo',
      signature: 'everything.echo(message: string)  [read, global]',
      effect: 'read',
      tier: 'cautious',
      agents: ['coder', 'reviewer'],
    });
    expect(broken).toMatchObject({
      id: 'broken',
      state: 'failed',
      error: expect.stringContaining('exited with code 3'),
      tools: [],
    });
    expect(remote).toMatchObject({
      id: 'remote',
      transport: { kind: 'http', origin: 'http://127.0.0.1:9', headers: ['Authorization'] },
      state: 'failed',
      confinement: { confined: false, reason: expect.stringContaining('HTTP') },
      tier: 'readonly',
    });
    expect(r.stdout).not.toContain('never-shown');
  });
});

everything.describe('harness servers logs', () => {
  const instance = join(box.root, 'logs-instance');

  it('says the broker has not started a server it has no log of yet', async () => {
    const r = await run(['servers', 'logs', 'everything', '--workspace', mixed, '--instance', instance]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `no log of everything yet: the broker has not started that server yet (there is no instance at ${instance} yet)\n`,
    );
  });

  it('prints what a server wrote to stderr once a broker has run it, and servers list rewrites it the same way', async () => {
    // A call through the embedded broker creates the instance and starts the servers (list_commands).
    const call = await run([
      'call',
      'list_commands',
      '--workspace',
      mixed,
      '--instance',
      instance,
      '--agent',
      'reviewer',
    ]);
    expect(call.code, call.stderr).toBe(0);
    expect(processesWith(marker)).toEqual([]);
    const ev = await run(['servers', 'logs', 'everything', '--instance', instance]);
    expect(ev.code, ev.stderr).toBe(0);
    expect(ev.stdout).toBe('Starting default (STDIO) server...\n');
    const broken = await run(['servers', 'logs', 'broken', '--instance', instance]);
    expect(broken.stdout).toBe('exit-server: config file /etc/nowhere.toml not found\n');

    const list = await run(['servers', 'list', '--instance', instance]);
    expect(list.code).toBe(1);
    const again = await run(['servers', 'logs', 'broken', '--instance', instance]);
    expect(again.stdout).toBe('exit-server: config file /etc/nowhere.toml not found\n');
    expect(processesWith(marker)).toEqual([]);
  });

  it('refuses a server id the workspace does not declare, listing its servers, exit 2', async () => {
    const r = await run([
      'servers',
      'logs',
      'github',
      '--workspace',
      mixed,
      '--instance',
      join(box.root, 'i7'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `harness: no MCP server "github" in ${mixed}; its servers: everything, broken, remote\n`,
    );
  });
});

everything.describe('the servers in harness doctor and harness packs check', () => {
  it('doctor has one row per server: it answers tools/list with N tools and how it is confined, or fails naming its error', async () => {
    const r = await run(['doctor', '--workspace', mixed, '--instance', join(box.root, 'i8')]);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    const row = (id: string) => lines.find((l) => l.includes(` server ${id} `)) ?? '';
    expect(row('everything')).toMatch(
      new RegExp(
        `^warn server everything +starts and answers tools/list with 13 tool\\(s\\); ${regexpOf(confined.trim())}.*; warning: MCP server "everything"`,
      ),
    );
    expect(row('broken')).toMatch(
      /^FAIL server broken +does not start: server broken exited with code 3; last stderr: exit-server: config file \/etc\/nowhere.toml not found/,
    );
    expect(row('remote')).toMatch(/^FAIL server remote +does not start: .*; unconfined: an HTTP server/);
    expect(processesWith(marker)).toEqual([]);
  });

  it('packs check counts the servers beside packs and agents', async () => {
    const r = await run(['packs', 'check', mixed, '--no-probe']);
    expect(r.code, r.stderr).toBe(0);
    // Where no sandbox works, a warning that its stdio servers run unconfined comes first.
    const shown = r.stdout.replace(/^warning: .*sandbox_mode preferred: .*\n/m, '');
    expect(shown).toBe(
      `ok: ${mixed}: 0 pack(s), 2 agent(s), 3 server(s)\n  agent coder: server:everything\n  agent reviewer: everything.echo\n`,
    );
  });
});

function regexpOf(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
