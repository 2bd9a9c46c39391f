// harness packs check|list against real workspace files written inline.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());
const run = (args: string[]) => runCli(args, { home: box.home });
function write(name: string, text: string): string {
  mkdirSync(join(box.root, 'ws'), { recursive: true });
  const file = join(box.root, 'ws', name);
  writeFileSync(file, text);
  return file;
}

describe('harness packs check', () => {
  it('loads the example workspace by default', async () => {
    const r = await run(['packs', 'check']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(join(fixturesDir, 'workspaces', 'demo', 'workspace.yaml'));
    expect(r.stdout).toMatch(/agent demo: .*notes\.append/);
  });

  it('prints every load error as file:line:column, exit 1', async () => {
    const file = write(
      'bad.yaml',
      [
        'version: 1',
        'command_packs:',
        '  - id: bad.pack',
        '    commands:',
        '      - id: run',
        '        argv: [ls]',
        '        effects: sideways',
        'agents: []',
        '',
      ].join('\n'),
    );
    const r = await run(['packs', 'check', file]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n').filter((l) => l.startsWith(`${file}:`))).toEqual([
      `${file}:3:9: command_packs[0].id: expected a pack id matching [a-z0-9][a-z0-9-]* (lowercase, digits, dashes), found "bad.pack"`,
      `${file}:7:18: command_packs[0].commands[0].effects: expected effects read or write, found "sideways"`,
    ]);
    expect(r.stdout).toContain(`2 error(s): ${file} does not load`);
    const json = JSON.parse((await run(['packs', 'check', file, '--json'])).stdout);
    expect(json.ok).toBe(false);
    expect(json.issues).toHaveLength(2);
  });

  const needy = (optional: boolean) =>
    [
      'version: 1',
      'command_packs:',
      '  - id: needy',
      ...(optional ? ['    optional: true'] : []),
      '    requires:',
      '      - { binary: definitely-not-installed-xyz }',
      '    commands:',
      '      - id: go',
      '        argv: [definitely-not-installed-xyz]',
      '        effects: read',
      '  - id: fine',
      '    commands:',
      '      - id: go',
      '        argv: [node, --version]',
      '        effects: read',
      'agents:',
      '  - id: a',
      '    grants: [pack:fine]',
      '',
    ].join('\n');

  it('probes requirements: a missing binary fails a required pack, and leaves out an optional one', async () => {
    const required = await run(['packs', 'check', write('required.yaml', needy(false))]);
    expect(required.code).toBe(1);
    expect(required.stdout).toMatch(/:5:9: pack "needy" requires definitely-not-installed-xyz/);
    const optional = await run(['packs', 'check', write('optional.yaml', needy(true))]);
    expect(optional.code).toBe(0);
    expect(optional.stdout).toContain('left out: pack needy: definitely-not-installed-xyz is not installed');
    const skipped = await run(['packs', 'check', write('required2.yaml', needy(false)), '--no-probe']);
    expect(skipped.code).toBe(0);
  });
});

describe('harness packs list', () => {
  it('prints the catalog exactly as list_commands gives it to a model', async () => {
    const instance = join(box.root, 'list');
    const text = await run(['packs', 'list', '--instance', instance]);
    expect(text.code).toBe(0);
    const json = await run(['packs', 'list', '--json', '--instance', instance]);
    const viaCall = await run(['call', 'list_commands', '--instance', instance]);
    const strip = (s: string) => {
      const { outputId: _drop, ...rest } = JSON.parse(s);
      return rest;
    };
    expect(strip(json.stdout)).toEqual(strip(viaCall.stdout));
    const signatures = (strip(json.stdout).entries as { signature: string }[]).map((e) => e.signature);
    expect(text.stdout.split('\n').slice(0, signatures.length)).toEqual(signatures);
    expect(text.stdout).toContain('echo.argv(value: string)  [read, global]');
  });
});
