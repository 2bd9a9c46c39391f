import { formatIssue, listCommands } from '@harness/packs';
import { describe, expect, it } from 'vitest';
import { resolveGrants } from '../src/index';
import { loadErrors, loadOk, workDir } from './helpers';

const packs = `command_packs:
  - id: json-tools
    commands:
      - { id: query, argv: [jq, '{{filter}}'], effects: read }
      - { id: keys, argv: [jq, keys], effects: read }
      - { id: edit, argv: [jq, '{{filter}}'], effects: write }
      - { id: undeclared, argv: [jq, '.'] }
  - id: writers
    commands:
      - { id: rm, argv: [rm, '{{file}}'], effects: write }
`;

describe('grants', () => {
  it('pack:<id> carries the read commands only; a write is granted by naming it; forms mix in one list [CP-64, CP-66, CP-67]', async () => {
    const ws = await loadOk(`${packs}agents:\n  - id: a\n    grants: [pack:json-tools, writers.rm]\n`);
    const r = resolveGrants(ws, 'a');
    expect(r.ok && r.commands).toEqual(['json-tools.keys', 'json-tools.query', 'writers.rm']);
    // undeclared effects mean write: pack:json-tools never carries json-tools.undeclared
    const named = resolveGrants(ws, ['json-tools.edit', 'json-tools.undeclared']);
    expect(named.ok && named.commands).toEqual(['json-tools.edit', 'json-tools.undeclared']);
  });

  it('a declared pack is inert until granted: the manifest lists only granted commands [CP-65]', async () => {
    const ws = await loadOk(
      `${packs}agents:\n  - id: nobody\n    grants: []\n  - id: a\n    grants: [pack:json-tools]\n`,
    );
    expect(ws.agents.find((a) => a.id === 'nobody')?.commands).toEqual([]);
    const a = ws.agents.find((x) => x.id === 'a');
    expect(listCommands(ws, { commands: a?.commands ?? [] }).map((r) => r.id)).toEqual([
      'json-tools.query',
      'json-tools.keys',
    ]);
  });

  it('a read command added later reaches pack:<id> holders; an added write still loads and is excluded [CP-68, D3]', async () => {
    const grown = packs.replace(
      `      - { id: undeclared, argv: [jq, '.'] }\n`,
      `      - { id: undeclared, argv: [jq, '.'] }\n      - { id: count, argv: [jq, length], effects: read }\n      - { id: purge, argv: [jq, '.'], effects: write }\n`,
    );
    const ws = await loadOk(`${grown}agents:\n  - id: a\n    grants: [pack:json-tools]\n`);
    expect(ws.agents[0]?.commands).toEqual(['json-tools.count', 'json-tools.keys', 'json-tools.query']);
  });

  it('a pack grant one slip away from a pack asks whether that pack was meant [CP-70]', async () => {
    expect(await loadErrors(`${packs}agents:\n  - id: a\n    grants: [pack:writer]\n`)).toEqual([
      'workspace.yaml:13:14: agent "a": grant "pack:writer" matches no pack (did you mean "pack:writers"?); packs: json-tools, writers',
    ]);
  });

  it('a grant matching nothing, and pack: with no id, are errors listing what exists [CP-70, CP-74]', async () => {
    expect(
      await loadErrors(
        `${packs}agents:\n  - id: a\n    grants: [pack:nope, 'pack:', json-tools.nope, nope.x, json-tools]\n`,
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:13:14: agent "a": grant "pack:nope" matches no pack; packs: json-tools, writers",
        "workspace.yaml:13:25: agent "a": grant "pack:" names no pack: expected pack:<id>; packs: json-tools, writers",
        "workspace.yaml:13:34: agent "a": grant "json-tools.nope" names no command of pack "json-tools"; its commands: json-tools.query, json-tools.keys, json-tools.edit, json-tools.undeclared",
        "workspace.yaml:13:51: agent "a": grant "nope.x" names no command; commands: json-tools.query, json-tools.keys, json-tools.edit, json-tools.undeclared, writers.rm",
        "workspace.yaml:13:59: agent "a": grant "json-tools" is not a grant: expected pack:<id>, <pack>.<command>, server:<id> or <server>.<tool>; packs: json-tools, writers",
      ]
    `);
  });

  it('pack:<id> whose commands are all writes is an error (it would grant nothing), naming the writes [CP-75]', async () => {
    expect(
      await loadErrors(`${packs}agents:\n  - id: a\n    grants: [pack:writers]\n`),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:13:14: agent "a": grant "pack:writers" matches nothing: pack:<id> carries read commands only and "writers" has none; grant its writes by name: writers.rm",
      ]
    `);
  });

  it('server:<id> naming no declared server is an error listing the servers, with the near one [CP-69, CP-70]', async () => {
    const servers = `mcp_servers:\n  - { id: github, transport: { url: "https://mcp.example.com/mcp" } }\n`;
    const ws = await loadOk(`${packs}${servers}`);
    const r = resolveGrants(ws, ['server:githb']);
    expect(!r.ok && r.issues.map(formatIssue)).toEqual([
      'grant "server:githb" matches no MCP server (did you mean "server:github"?); servers: github',
    ]);
    const none = resolveGrants(await loadOk(packs), ['server:filesystem']);
    expect(!none.ok && none.issues.map(formatIssue)).toEqual([
      'grant "server:filesystem" matches no MCP server; the workspace declares no MCP server; declare one under mcp_servers (docs/servers.md)',
    ]);
  });

  it('a granted pack command is an ordinary manifest row (id, title, help, inputs, effect, timeoutMs) [CP-72]', async () => {
    const ws = await loadOk(packs);
    expect(listCommands(ws)[0]).toEqual({
      id: 'json-tools.query',
      title: 'json-tools.query',
      help: 'json-tools.query',
      inputs: {
        type: 'object',
        properties: { filter: { type: 'string' } },
        required: ['filter'],
        additionalProperties: false,
      },
      effect: 'read',
      timeoutMs: 30_000,
    });
  });

  it('a row carries the timeout the runner enforces: the override, else the pack’s, else 30 s [CP-43, CP-44, CP-45]', async () => {
    const ws = await loadOk(`version: 1
command_packs:
  - id: build
    timeout: 6m
    timeout_overrides:
      quick: 5s
    commands:
      - id: test
        argv: [echo, test]
        effects: read
      - id: quick
        argv: [echo, quick]
        effects: read
  - id: plain
    commands:
      - id: echo
        argv: [echo, plain]
        effects: read
`);
    expect(listCommands(ws).map((r) => [r.id, r.timeoutMs])).toEqual([
      ['build.test', 360_000],
      ['build.quick', 5_000],
      ['plain.echo', 30_000],
    ]);
  });

  it('an unknown agent id is an error listing the agents', async () => {
    const ws = await loadOk(`${packs}agents:\n  - id: a\n`);
    const r = resolveGrants(ws, 'b');
    expect(!r.ok && r.issues[0]?.message).toMatchInlineSnapshot(`"unknown agent "b"; agents: a"`);
  });

  it('a grant naming a pack left out on this machine is a warning, not an error', async () => {
    const ws = await loadOk(
      `command_packs:\n  - id: gone\n    optional: true\n    requires: [{ binary: no-such-binary-xyz }]\n    commands:\n      - { id: a, argv: [x], effects: read }\nagents:\n  - id: r\n    grants: [pack:gone, gone.a]\n`,
      { probe: true },
    );
    expect(ws.agents[0]?.commands).toEqual([]);
    expect(ws.warnings.map((w) => formatIssue(w).replace(workDir, '<dir>'))).toMatchInlineSnapshot(`
      [
        "<dir>/workspace.yaml:4:16: optional pack "gone" left out: no-such-binary-xyz is not installed (not found on PATH); its commands gone.a are not offered",
        "<dir>/workspace.yaml:9:14: agent "r": grant "pack:gone" carries nothing on this machine: pack "gone" was left out because no-such-binary-xyz is not installed (not found on PATH)",
        "<dir>/workspace.yaml:9:25: agent "r": grant "gone.a" carries nothing on this machine: pack "gone" was left out because no-such-binary-xyz is not installed (not found on PATH)",
      ]
    `);
  });
});

describe('effects and synthetic ids', () => {
  it('effects is read or write; anything else fails load [CP-60]', async () => {
    expect(
      await loadErrors(
        `command_packs:\n  - id: p\n    commands:\n      - { id: a, argv: ['true'], effects: readonly }\n`,
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:43: command_packs[0].commands[0].effects: expected effects read or write, found "readonly"; e.g. effects: read",
      ]
    `);
  });

  it('a command with no effects is a write (and says it was not declared) [CP-61]', async () => {
    const ws = await loadOk(`command_packs:\n  - id: p\n    commands:\n      - { id: a, argv: ['true'] }\n`);
    expect(ws.packs[0]?.commands[0]).toMatchObject({ effects: 'write', effectsDeclared: false });
    expect(listCommands(ws)[0]?.effect).toBe('write');
  });

  it('a pack command becomes an ordinary manifest row with the synthetic id <pack>.<command> (D2) [CP-27, CP-71]', async () => {
    const ws = await loadOk(packs);
    expect(listCommands(ws).map((r) => r.id)).toEqual([
      'json-tools.query',
      'json-tools.keys',
      'json-tools.edit',
      'json-tools.undeclared',
      'writers.rm',
    ]);
  });

  it('a pack shipped with the product is inert until a workspace declares it and a grant names it [CP-76, CP-77]', async () => {
    // json-tools ships in fixtures/workspaces/demo; a workspace that does not declare it cannot grant it.
    expect(await loadErrors(`agents:\n  - id: a\n    grants: [json-tools.query]\n`)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:14: agent "a": grant "json-tools.query" names no command; commands: none",
      ]
    `);
    const declared = await loadOk(`${packs}agents:\n  - id: a\n`);
    expect(declared.agents[0]?.commands).toEqual([]);
  });
});
