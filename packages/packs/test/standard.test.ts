import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectSandbox } from '@harness/exec';
import { needs, sandboxMechanism } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { describeStandardPacks, listCommands, STANDARD_PACKS } from '../src/index';
import { loadErrors, loadOk } from './helpers';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

// A small library in place of the bundled one, so that merge rules are tested apart from what the
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

// Where no sandbox works, a workspace in sandbox_mode preferred runs every command unconfined: the
// policies these tests read are then null, so they need a mechanism (CI has one).
const sandboxed = needs(sandboxMechanism(detectSandbox()));

describe('standard packs: declared by name, overridden key by key', () => {
  it('a "standard:" entry is the bundled pack, with its commands, under the standard name [CP-76]', async () => {
    const ws = await loadOk('command_packs:\n  - standard: tools\n', { standardPacks: library });
    const pack = ws.packs[0]!;
    expect(pack.id).toBe('tools');
    expect(pack.standard).toBe('tools');
    expect(pack.commands.map((c) => c.manifestId)).toEqual(['tools.a', 'tools.b']);
    expect(pack.env).toEqual({ LC_ALL: 'C', TZ: 'UTC' });
  });

  it('scalar keys replace the bundled value; id renames the pack', async () => {
    const ws = await loadOk(
      'command_packs:\n  - standard: tools\n    id: my-tools\n    permission: strict\n    timeout: 5m\n    description: mine\n',
      { standardPacks: library },
    );
    const pack = ws.packs[0]!;
    expect([pack.id, pack.permission, pack.description, pack.commands[0]?.timeoutMs]).toEqual([
      'my-tools',
      'strict',
      'mine',
      300_000,
    ]);
    expect(pack.commands.map((c) => c.manifestId)).toEqual(['my-tools.a', 'my-tools.b']);
  });

  it('env, permission_overrides and timeout_overrides merge name by name, the workspace winning', async () => {
    const ws = await loadOk(
      `command_packs:
  - standard: tools
    env: { TZ: Europe/Paris, EXTRA: "1" }
    permission_overrides: { a: readonly }
    timeout_overrides: { b: 2s }
`,
      { standardPacks: library },
    );
    const pack = ws.packs[0]!;
    expect(pack.env).toEqual({ LC_ALL: 'C', TZ: 'Europe/Paris', EXTRA: '1' });
    expect(pack.commands.map((c) => [c.id, c.tier, c.timeoutMs])).toEqual([
      ['a', 'readonly', 30_000],
      ['b', 'strict', 2_000],
    ]);
  });

  sandboxed.it(
    'sandbox merges field by field (filesystem.read, .write, .deny each whole); false replaces the block',
    async () => {
      const net = await loadOk('command_packs:\n  - standard: tools\n    sandbox: { network: host }\n', {
        standardPacks: library,
      });
      expect(net.packs[0]?.commands[0]?.sandbox).toMatchObject({ read: [net.dir], network: 'host' });
      const write = await loadOk(
        'command_packs:\n  - standard: tools\n    sandbox: { filesystem: { write: [out] } }\n',
        { standardPacks: library },
      );
      expect(write.packs[0]?.commands[0]?.sandbox).toMatchObject({
        read: [write.dir],
        write: [join(write.dir, 'out')],
        network: 'none',
      });
      const off = await loadOk('command_packs:\n  - standard: tools\n    sandbox: false\n', {
        standardPacks: library,
      });
      expect(off.packs[0]?.commands[0]?.sandbox).toBeNull();
    },
  );

  it('requires merges by binary: the workspace entry for a binary replaces its constraint, others are added', async () => {
    const ws = await loadOk(
      'command_packs:\n  - standard: tools\n    requires: [{ binary: env, version: ">=2" }, { binary: cat }]\n',
      { standardPacks: library },
    );
    expect(ws.packs[0]?.requires).toEqual([
      { binary: 'sh' },
      { binary: 'env', version: '>=2' },
      { binary: 'cat' },
    ]);
  });

  it('input_overrides narrows an enum and replaces a description; the model sees the result', async () => {
    const ws = await loadOk(
      'command_packs:\n  - standard: tools\n    input_overrides: { b: { word: { enum: [x], description: only x } } }\n',
      { standardPacks: library },
    );
    expect(listCommands(ws)[1]?.inputs.properties.word).toEqual({
      type: 'string',
      enum: ['x'],
      pattern: '^[a-z]$',
      description: 'only x',
    });
  });

  it('an override never widens: an enum value the bundled input refuses fails the load at its place', async () => {
    expect(
      await loadErrors(
        'command_packs:\n  - standard: tools\n    input_overrides: { b: { word: { enum: [x, W] } } }\n',
        { standardPacks: library },
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:47: command_packs[0].input_overrides.b.word.enum[1]: an override only narrows what tools.b accepts; expected a value its input "word" accepts (to match the pattern ^[a-z]$), found "W"",
      ]
    `);
  });

  it('an unknown standard name is a load error listing the bundled ones', async () => {
    expect(
      await loadErrors('command_packs:\n  - standard: gti\n  - standard: tools\n', {
        standardPacks: { ...library, make: tools },
      }),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:2:15: command_packs[0].standard: no standard pack is named "gti"; expected one of make, tools",
      ]
    `);
  });

  it('a key within two edits of "standard" on an entry with no id and no commands asks "did you mean standard", alone', async () => {
    expect(
      await loadErrors('command_packs:\n  - standrd: tools\n  - { stnadard: 3, timeout: 5s }\n', {
        standardPacks: library,
      }),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:2:5: command_packs[0].standrd: unknown key "standrd"; did you mean "standard"? e.g. standard: tools",
        "workspace.yaml:3:7: command_packs[1].stnadard: unknown key "stnadard"; did you mean "standard"? e.g. standard: <name>",
      ]
    `);
  });

  it('a pack of its own with a key near "standard" keeps the schema\'s message about its keys', async () => {
    expect(
      await loadErrors(
        'command_packs:\n  - id: own\n    standrd: tools\n    commands: [{ id: x, argv: [ls], effects: read }]\n',
        {
          standardPacks: library,
        },
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:5: command_packs[0]: expected only the keys id, description, permission, permission_overrides, unattended_when_confined, timeout, timeout_overrides, approval_wait, approval_timeout, telemetry, input_overrides, max_output, requires, cwd, env, credentials_ref, label, optional, scopes, sandbox, plan_inputs, commands; unknown key "standrd"; e.g. command_packs: [{ id: dev, commands: [{ id: status, effects: read, argv: [git, status] }] }]",
      ]
    `);
  });

  it('an entry may not bring its own commands, and its standard must be a name', async () => {
    expect(
      await loadErrors(
        'command_packs:\n  - standard: tools\n    commands: [{ id: x, argv: [true] }]\n  - standard: 3\n',
        { standardPacks: library },
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:5: command_packs[0].commands: the commands of standard pack "tools" come with it; expected only overrides of the bundled pack (id, description, permission, permission_overrides, unattended_when_confined, timeout, timeout_overrides, approval_wait, approval_timeout, telemetry, input_overrides, max_output, requires, cwd, env, credentials_ref, label, optional, scopes, sandbox, plan_inputs); to change its commands, copy standard/tools.yaml into this file as a pack of your own",
        "workspace.yaml:4:15: command_packs[1].standard: expected a standard pack name: tools, found number 3",
      ]
    `);
  });
});

describe('the bundled standard packs', () => {
  const files = readdirSync(join(packageDir, 'standard')).filter((f) => f.endsWith('.yaml'));
  const onDisk: Record<string, string> = Object.fromEntries(
    files.map((f) => [f.slice(0, -'.yaml'.length), readFileSync(join(packageDir, 'standard', f), 'utf8')]),
  );

  it('are embedded in the code exactly as standard/*.yaml writes them (run pnpm standard)', () => {
    expect(STANDARD_PACKS).toEqual(onDisk);
  });

  it('ship in the package (files and exports name the folder)', () => {
    const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    expect(pkg.files).toContain('standard');
    expect(pkg.exports['./standard/*']).toBe('./standard/*');
  });

  it('open each command description with one short sentence that is not the title, details after it', async () => {
    // list_commands shows a description's first paragraph only: it must tell a model something the
    // title does not, in few tokens (bench/standard-catalog); the output format and exit codes
    // follow as one more paragraph, shown by list_commands({ detail }).
    const commands = (await describeStandardPacks({ probe: false })).flatMap((p) => p.commands);
    expect(commands.length).toBeGreaterThan(40);
    for (const c of commands) {
      const [lead = '', ...rest] = c.description.split('\n');
      expect(lead, c.id).toMatch(/\S\.$/);
      expect(lead.split(' ').length, `${c.id}: ${lead}`).toBeLessThanOrEqual(12);
      expect(lead.toLowerCase(), c.id).not.toBe(`${c.title.toLowerCase()}.`);
      expect(rest.length, c.id).toBeLessThanOrEqual(1);
      for (const paragraph of rest) expect(paragraph.length, c.id).toBeGreaterThan(lead.length);
    }
  });

  it.each(files.map((f) => f.slice(0, -'.yaml'.length)))(
    'standard pack %s loads, each file named by its id, every command with examples that hold',
    async (name) => {
      // The packs whose inputs take their values from the workspace (enum_from_workspace).
      const listed: Record<string, string> = {
        make: '{ run: { target: { enum: [test] } } }',
        node: '{ run: { script: { enum: [test] } }, exec_bin: { bin: { enum: [tsc] } } }',
        python: '{ run_module: { module: { enum: [app] } } }',
      };
      const overrides = listed[name] === undefined ? '' : `\n    input_overrides: ${listed[name]}`;
      // The files themselves, so that a pack is checked before it is embedded.
      const ws = await loadOk(`command_packs:\n  - standard: ${name}${overrides}\n`, {
        standardPacks: onDisk,
      });
      const pack = ws.packs[0]!;
      expect(pack.id).toBe(name);
      expect(pack.optional).toBe(true);
      for (const command of pack.commands) {
        expect(command.effectsDeclared).toBe(true);
        expect(command.description.length).toBeGreaterThan(20);
        expect(command.examples.length).toBeGreaterThan(0);
        for (const [input, schema] of Object.entries(command.inputs)) {
          expect(schema.description, `${command.manifestId} input ${input}`).toBeTruthy();
        }
        // Reads are confined read-only with no network, but gh's: they talk to GitHub.
        if (command.effects === 'read' && sandboxed.runs)
          expect(command.sandbox).toMatchObject({ write: [], network: name === 'gh' ? 'host' : 'none' });
      }
    },
  );
});

describe('describeStandardPacks', () => {
  it('describes every bundled pack outside any workspace, a listed-by-workspace input shown open', async () => {
    const packs = await describeStandardPacks({ probe: false });
    expect(packs.map((p) => p.id)).toEqual(Object.keys(STANDARD_PACKS).sort());
    const make = packs.find((p) => p.id === 'make')!;
    expect(make.commands.map((c) => [c.id, c.effect, c.tier, c.program])).toEqual([
      ['make.run', 'write', 'cautious', 'make'],
    ]);
    expect(make.commands[0]?.inputs.properties.target).toMatchObject({ type: 'string' });
    expect(make.commands[0]?.inputs.properties.target?.enum).toBeUndefined();
  });

  it('says which packs this machine cannot run, and still describes them', async () => {
    const packs = await describeStandardPacks({ path: '/nonexistent-bin' });
    const jq = packs.find((p) => p.id === 'jq')!;
    expect([jq.available, jq.reason]).toEqual([false, 'jq is not installed (not found on PATH)']);
    expect(jq.commands.map((c) => c.id)).toEqual(['jq.query']);
  });
});
