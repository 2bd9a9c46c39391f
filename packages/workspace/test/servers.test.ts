// mcp_servers as the workspace loads them, grants them and the gate decides their tools' calls.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { formatIssue } from '@harness/packs';
import { needs, sandboxMechanism } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import {
  auditEvent,
  createMemoryApprovalStore,
  decide,
  loadWorkspace,
  mapToolIds,
  resolveGrants,
  toolMemberId,
} from '../src/index';
import { loadErrors, loadOk } from './helpers';

const packs = `command_packs:
  - id: git
    commands:
      - { id: status, argv: [git, status], effects: read }
`;

const github = `mcp_servers:
  - id: github
    transport:
      command: [node, server.js]
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "{{credential.gh_token}}" }
    credentials_ref: gh_token
    tools:
      get_issue: { effects: read }
    permission_overrides: { merge_pull_request: strict }
  - id: docs
    permission: readonly
    transport: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer {{credential.docs}}" } }
    credentials_ref: docs
    tools:
      search: { effects: read }
`;

const withSandbox = needs(sandboxMechanism(detectSandbox())).it;

describe('mcp_servers at load', () => {
  it('loads a stdio and an HTTP server beside the packs, a server without a tier being cautious [SV-01, SV-02]', async () => {
    const ws = await loadOk(`${packs}${github}`);
    expect(ws.servers.map((s) => [s.id, s.tier, s.transport.kind])).toEqual([
      ['github', 'cautious', 'stdio'],
      ['docs', 'readonly', 'http'],
    ]);
    const [gh] = ws.servers;
    expect(gh?.transport).toMatchObject({ command: ['node', 'server.js'] });
  });

  it('refuses a server id a pack already uses, and one declared twice, at their line and column [SV-01]', async () => {
    const text = `${packs}mcp_servers:
  - { id: git, transport: { url: "https://a.example/mcp" } }
  - { id: web, transport: { url: "https://a.example/mcp" } }
  - { id: web, transport: { url: "https://b.example/mcp" } }
`;
    expect(await loadErrors(text)).toEqual([
      'workspace.yaml:6:11: server id "git" is also a pack id: a grant "git.<name>" could not tell them apart; rename the server (e.g. git-mcp)',
      'workspace.yaml:8:11: server id "web" is declared twice: here and at workspace.yaml:7:11',
    ]);
  });

  it('refuses a credential in a stdio argv or an HTTP URL: only env and headers carry one [SV-11]', async () => {
    const text = `mcp_servers:
  - id: a
    transport: { command: [node, server.js, "--token={{credential.t}}"] }
    credentials_ref: t
  - id: b
    transport: { url: "https://x.example/mcp?key={{credential.t}}" }
    credentials_ref: t
`;
    const errors = await loadErrors(text);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain(
      'server "a": {{credential.t}} in its argv: credentials reach a server only through transport.env (stdio) or transport.headers (HTTP)',
    );
    expect(errors[1]).toContain('server "b": {{credential.t}} in its URL');
  });

  it('refuses a credential its credentials_ref does not list, in env or headers alike [SV-11]', async () => {
    const text = `mcp_servers:
  - id: a
    transport: { url: "https://x.example/mcp", headers: { Authorization: "Bearer {{credential.other}}" } }
`;
    const [error] = await loadErrors(text);
    expect(error).toContain('{{credential.other}} names a credential');
  });

  it('refuses plain http: beyond loopback, since headers carry credentials', async () => {
    const [error] = await loadErrors(
      `mcp_servers:\n  - { id: a, transport: { url: "http://mcp.example.com/mcp" } }\n`,
    );
    expect(error).toContain('url must be https:, or http: on a loopback address');
    await expect(
      loadOk(`mcp_servers:\n  - { id: a, transport: { url: "http://127.0.0.1:3001/mcp" } }\n`),
    ).resolves.toBeDefined();
  });

  it('pins by default and takes trust_annotations with pinning, a pinned readOnlyHint being trusted only then [SV-07, SV-18]', async () => {
    const ws = await loadOk(
      `mcp_servers:\n  - { id: a, transport: { url: "https://x.example/mcp" } }\n  - { id: b, trust_annotations: true, transport: { url: "https://y.example/mcp" } }\n`,
    );
    expect(ws.servers.map((s) => [s.id, s.pin, s.trustAnnotations])).toEqual([
      ['a', true, false],
      ['b', true, true],
    ]);
    expect(ws.warnings).toEqual([]);
  });

  it('warns at load of a server that turns pinning off, saying what it leaves unreviewed [SV-18]', async () => {
    const r = await loadWorkspace(
      {
        text: `mcp_servers:\n  - { id: a, pin: false, transport: { url: "https://x.example/mcp" } }\n`,
        file: 'workspace.yaml',
      },
      { probe: false },
    );
    if (!r.ok) throw new Error('expected the load to succeed');
    expect(r.workspace.servers[0]?.pin).toBe(false);
    expect(r.warnings.map(formatIssue)).toEqual([
      'workspace.yaml:2:14: server "a": pin: false, so its tools reach agents as it lists them, and a definition it changes (a description, a schema) is served without a person\'s review; remove pin: false to review each definition (harness servers review a)',
    ]);
  });

  it('refuses trust_annotations with pin: false, there being no accepted definition to trust [SV-07]', async () => {
    const [error] = await loadErrors(
      `mcp_servers:\n  - { id: a, pin: false, trust_annotations: true, transport: { url: "https://x.example/mcp" } }\n`,
    );
    expect(error).toContain('trust_annotations needs pinned definitions, and its entry says pin: false');
    expect(error).toContain('tools: { <name>: { effects: read } }');
  });

  // Where no sandbox works (no bubblewrap), a server runs unconfined under the default sandbox_mode,
  // as a read command does (docs/servers.md, "Confinement and lifecycle").
  withSandbox(
    'confines a stdio server by default: the whole filesystem read-only minus the deny list, no network, nothing writable [SV-12]',
    async () => {
      const ws = await loadOk(github);
      const policy = ws.servers[0]?.sandbox;
      expect(policy).toMatchObject({ read: 'all', write: [], network: 'none' });
      // The home is hidden but for the toolchains and the server's cwd: ~/.ssh is never among them.
      expect(policy?.home?.dir).toBe(homedir());
      expect(policy?.home?.visible).not.toContain(join(homedir(), '.ssh'));
      expect(policy?.deny?.length).toBeGreaterThan(0);
      expect(policy?.unixSockets).toBeUndefined();
      const widened = await loadOk(
        `${github.replace('    tools:\n      get_issue', '    sandbox: { network: host }\n    tools:\n      get_issue')}`,
      );
      expect(widened.servers[0]?.sandbox?.network).toBe('host');
      const off = await loadOk(`sandbox_mode: 'off'\n${github}`);
      expect(off.servers[0]).toMatchObject({ sandbox: null, unconfined: 'sandbox_mode is off' });
    },
  );

  withSandbox(
    'warns at load of a confined server whose program lies where its sandbox hides it, naming the entry that shows it [SV-12]',
    async () => {
      mkdirSync(join(homedir(), '.cache'), { recursive: true });
      const dir = mkdtempSync(join(homedir(), '.cache', 'harness-hidden-server-'));
      try {
        const program = join(dir, 'dist', 'index.js');
        mkdirSync(dirname(program));
        writeFileSync(program, '');
        const entry = (extra: string) =>
          `mcp_servers:\n  - id: local\n    transport: { command: [node, ${JSON.stringify(program)}] }\n${extra}`;
        const load = async (text: string) => {
          const r = await loadWorkspace({ text, file: 'workspace.yaml' }, { probe: false });
          if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
          return r.warnings.map(formatIssue);
        };
        expect(await load(entry(''))).toEqual([
          `workspace.yaml:3:34: server "local": ${program} is hidden from the server by its sandbox, so it will not start; show its folder with sandbox: { filesystem: { home: [${JSON.stringify(dirname(program))}] } } (read-only), install it outside the home, or set sandbox: false`,
        ]);
        expect(
          await load(entry(`    sandbox: { filesystem: { home: [${JSON.stringify(dir)}] } }\n`)),
        ).toEqual([]);
        expect(await load(entry('    sandbox: false\n'))).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('server tool ids', () => {
  it('keeps a valid member id and maps any other by one rule, the upstream name kept beside it [SV-08]', () => {
    expect(toolMemberId('get_issue')).toBe('get_issue');
    expect(toolMemberId('getIssue')).toBe('get_issue');
    expect(toolMemberId('browser.navigate')).toBe('browser_navigate');
    expect(toolMemberId('Search Code!')).toBe('search_code');
    const long = toolMemberId('x'.repeat(80));
    expect(long).toMatch(/^x{55}_[0-9a-f]{8}$/);
    expect(toolMemberId('x'.repeat(81))).not.toBe(long);
    const mapped = mapToolIds(['getIssue', 'list']);
    expect(mapped.ok && [...mapped.byMember]).toEqual([
      ['get_issue', 'getIssue'],
      ['list', 'list'],
    ]);
  });

  it('names both upstream names when two map to one id [SV-08]', () => {
    expect(mapToolIds(['get_issue', 'getIssue', 'x'])).toEqual({
      ok: false,
      collisions: [['get_issue', 'get_issue', 'getIssue']],
    });
  });
});

describe('server grants and the gate', () => {
  const agents = `agents:
  - id: whole
    grants: [server:github, pack:git]
  - id: one
    grants: [github.get_issue]
  - id: reader
    grants: [server:docs]
`;

  it('server:<id> grants every tool of the server, reads and writes alike, mixed with pack grants [CP-64, CP-69]', async () => {
    const ws = await loadOk(`${packs}${github}${agents}`);
    const whole = ws.agents.find((a) => a.id === 'whole');
    expect([whole?.commands, whole?.servers]).toEqual([['git.status'], ['github']]);
    const write = decide(ws, { commandId: 'github.create_issue', caller: 'whole' });
    expect([write.outcome, write.code]).toEqual(['approval_required', 'write_needs_approval']);
    const r = resolveGrants(ws, ['server:github']);
    expect(r.ok && r.servers).toEqual(['github']);
  });

  it('<server>.<tool> grants that one tool; any other tool of the server is not granted [SV-09]', async () => {
    const ws = await loadOk(`${packs}${github}${agents}`);
    expect(decide(ws, { commandId: 'github.get_issue', caller: 'one' }).outcome).toBe('allow');
    const other = decide(ws, { commandId: 'github.list_issues', caller: 'one' });
    expect([other.outcome, other.code, other.reason]).toEqual([
      'deny',
      'not_granted',
      'mcp:call:github:list_issues denied: "one" holds no grant for github.list_issues',
    ]);
  });

  it('a declared read runs unattended under cautious, an undeclared tool is a write that asks [SV-05, SV-03]', async () => {
    const ws = await loadOk(`${packs}${github}${agents}`);
    const read = decide(ws, { commandId: 'github.get_issue', caller: 'whole' });
    expect([read.outcome, read.code, read.effects, read.tier]).toEqual([
      'allow',
      'read_auto_approved',
      'read',
      'cautious',
    ]);
    const store = createMemoryApprovalStore();
    const strict = decide(ws, { commandId: 'github.merge_pull_request', caller: 'whole', approvals: store });
    expect([strict.outcome, strict.code, strict.tier]).toEqual([
      'approval_required',
      'strict_tier',
      'strict',
    ]);
    expect(strict.action).toBe('mcp:call:github:merge_pull_request');
  });

  it('readonly denies every tool not declared read, whatever its name says [SV-06]', async () => {
    const ws = await loadOk(`${packs}${github}${agents}`);
    expect(decide(ws, { commandId: 'docs.search', caller: 'reader' }).outcome).toBe('allow');
    // A name that reads like a read is still a write until the owner declares it.
    const named = decide(ws, { commandId: 'docs.get_page', caller: 'reader' });
    expect([named.outcome, named.code]).toEqual(['deny', 'readonly_tier']);
    expect(named.reason).toContain(
      'server "docs" is readonly and docs.get_page declares effects write (undeclared effects mean write)',
    );
  });

  it('open, or no governance, allows a tool call that passes the tier check [SV-04]', async () => {
    const ws = await loadOk(
      `${packs}${github.replace('  - id: github\n', '  - id: github\n    permission: open\n')}${agents}`,
    );
    expect(decide(ws, { commandId: 'github.create_issue', caller: 'whole' }).code).toBe('open_tier');
    const cautious = await loadOk(`${packs}${github}${agents}`);
    expect(
      decide(cautious, { commandId: 'github.create_issue', caller: 'whole', governance: false }).code,
    ).toBe('no_governance');
  });

  it('reads tier and effects by the upstream name when the member id was mapped [SV-08]', async () => {
    const ws = await loadOk(
      `${packs}${github.replace('get_issue: { effects: read }', 'getIssue: { effects: read }')}${agents}`,
    );
    const d = decide(ws, { commandId: 'github.get_issue', upstream: 'getIssue', caller: 'whole' });
    expect([d.outcome, d.effects, d.action]).toEqual(['allow', 'read', 'mcp:call:github:getIssue']);
  });

  it('audits a tool call as provider mcp, the server as container and the tool as member [CP-21, CP-25]', async () => {
    const ws = await loadOk(`${packs}${github}${agents}`);
    const decision = decide(ws, { commandId: 'github.create_issue', caller: 'whole' });
    const event = auditEvent(ws, 'github.create_issue', { agent: 'whole', decision });
    expect(event?.action).toBe('mcp:call:github:create_issue');
    expect(event?.payload).toMatchObject({
      provider: 'mcp',
      container: 'github',
      member: 'create_issue',
      effects: 'write',
    });
  });
});
