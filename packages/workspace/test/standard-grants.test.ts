// Standard packs in a workspace: a bundled pack is inert until the workspace declares it and an
// agent is granted it, a grant of pack:<id> follows the bundled pack as it grows, and an issue inside
// the bundled pack points at the workspace line that declares it.
import { listCommands, runPackCommand } from '@harness/packs';
import { describe, expect, it } from 'vitest';
import { decide } from '../src/index';
import { loadErrors, loadOk } from './helpers';

// A small library in place of the bundled one, so that grants are tested apart from what the
// bundled packs happen to declare.
const tools = `id: tools
description: bundled tools
permission: cautious
timeout: 30s
requires:
  - { binary: sh }
  - { binary: env, version: ">=1.0" }
env: { LC_ALL: C, TZ: UTC }
permission_overrides: { b: strict }
sandbox:
  filesystem: { read: [.] }
  network: none
commands:
  - { id: a, argv: [echo, a], effects: read }
  - { id: b, argv: [echo, '{{word}}'], effects: read, inputs: { word: { type: string, enum: [x, y, z], pattern: "^[a-z]$" } } }
`;
const library = { tools };

describe('standard packs in a workspace: declared, then granted', () => {
  it('an issue inside the bundled pack points at the workspace line of its standard entry', async () => {
    const broken = {
      tools: tools.replace(
        '{ id: a, argv: [echo, a], effects: read }',
        '{ id: a, argv: [echo, a], effects: read, examples: [{ args: {}, argv: [echo, b] }] }',
      ),
    };
    expect(
      await loadErrors(
        'agents: []\ncommand_packs:\n  - id: mine\n    commands: [{ id: x, argv: [echo] }]\n  - standard: tools\n',
        {
          standardPacks: broken,
        },
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:5:5: command_packs[1].commands[0].examples[0]: example 0 of tools.a does not hold: {} renders ["echo","a"]; the example says ["echo","b"]",
      ]
    `);
    // A key the entry overrides is positioned at the override itself.
    expect(
      await loadErrors('command_packs:\n  - standard: tools\n    permission_overrides: { nope: strict }\n', {
        standardPacks: library,
      }),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:29: permission_overrides key "nope" names no command of pack "tools"; expected one of a, b",
      ]
    `);
  });

  it('a bundled pack is inert until the workspace declares it: not listed, not runnable, not grantable [CP-77]', async () => {
    const none = await loadOk('command_packs: []\n');
    expect(listCommands(none)).toEqual([]);
    const run = await runPackCommand(none, 'files.read', { path: 'README.md' });
    expect(!run.ok && run.issues.map((i) => i.code)).toEqual(['unknown_command']);
    expect(decide(none, { commandId: 'files.read', caller: 'a' }).code).toBe('unknown_command');
    expect(await loadErrors('agents:\n  - id: a\n    grants: [pack:files]\n')).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:14: agent "a": grant "pack:files" matches no pack; the workspace declares no pack; declare one under command_packs, e.g. command_packs: [{ id: dev, commands: [...] }]",
      ]
    `);
  });

  it('a grant of a command the workspace gives no list for names the list to add', async () => {
    expect(
      await loadErrors('command_packs:\n  - standard: make\nagents:\n  - id: a\n    grants: [make.run]\n'),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:5:14: agent "a": grant "make.run" names a command this workspace does not offer: it takes input "target" from a list the workspace gives, and it gives none; list the values it may take (input_overrides: { run: { target: { enum: [...] } } } on pack "make"), or remove the grant",
      ]
    `);
  });

  it('a declared bundled pack is inert until an agent is granted it [CP-77]', async () => {
    const ws = await loadOk(
      'command_packs:\n  - standard: files\nagents:\n  - id: none\n  - id: reader\n    grants: [pack:files]\n',
    );
    const none = ws.agents.find((a) => a.id === 'none')!;
    expect(listCommands(ws, { commands: none.commands })).toEqual([]);
    expect(decide(ws, { commandId: 'files.read', caller: 'none' })).toMatchObject({
      outcome: 'deny',
      code: 'not_granted',
    });
    const reader = ws.agents.find((a) => a.id === 'reader')!;
    expect(listCommands(ws, { commands: reader.commands }).map((r) => r.id)).toEqual([
      'files.list',
      'files.read',
      'files.stat',
      'files.find',
      'files.wc',
    ]);
    expect(decide(ws, { commandId: 'files.read', caller: 'reader' }).outcome).toBe('allow');
  });

  it('a new read command in a standard pack reaches pack: holders; a new write command does not [CP-76, CP-77]', async () => {
    const workspace = 'command_packs:\n  - standard: tools\nagents:\n  - id: a\n    grants: [pack:tools]\n';
    const before = await loadOk(workspace, { standardPacks: library });
    expect(before.agents[0]?.commands).toEqual(['tools.a', 'tools.b']);
    const next = {
      tools: `${tools}  - { id: c, argv: [echo, c], effects: read }\n  - { id: d, argv: [rm, x], effects: write }\n`,
    };
    const after = await loadOk(workspace, { standardPacks: next });
    expect(after.packs[0]?.commands.map((c) => c.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(after.agents[0]?.commands).toEqual(['tools.a', 'tools.b', 'tools.c']);
  });
});
