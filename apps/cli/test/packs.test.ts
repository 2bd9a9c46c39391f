// harness packs check|list against real workspace files written inline.
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fixturesDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { appDir, runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());
const run = (args: string[], home = box.home) => runCli(args, { home });
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
    // The copy the package ships, not the repository's fixtures/ two directories up.
    expect(r.stdout).toContain(join(appDir, 'dist', 'examples', 'demo', 'workspace.yaml'));
    expect(r.stdout).not.toContain(join(fixturesDir, 'workspaces'));
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
      `${file}:3:9: command_packs[0].id: expected a pack id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _), found "bad.pack"; e.g. id: dev`,
      `${file}:7:18: command_packs[0].commands[0].effects: expected effects read or write, found "sideways"; e.g. effects: read`,
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
    expect(required.stdout).toContain(
      ':5:9: pack "needy" is unavailable because definitely-not-installed-xyz is not on PATH; install definitely-not-installed-xyz, or mark the pack optional: true\n',
    );
    const optional = await run(['packs', 'check', write('optional.yaml', needy(true))]);
    expect(optional.code).toBe(0);
    expect(optional.stdout).toContain('left out: pack needy: definitely-not-installed-xyz is not installed');
    const skipped = await run(['packs', 'check', write('required2.yaml', needy(false)), '--no-probe']);
    expect(skipped.code).toBe(0);
  });
});

describe('harness packs check: the first mistakes', () => {
  it('says to quote an unquoted template, with its line and column, and prints no stray warning', async () => {
    const file = write(
      'unquoted.yaml',
      'command_packs:\n  - id: dev\n    commands:\n      - id: head\n        effects: read\n        argv: [head, -n, {{n}}, file.txt]\n',
    );
    const r = await run(['packs', 'check', file]);
    expect(r.stdout).toBe(
      `${file}:6:26: the unquoted template {{n}} reads as a YAML map; quote the template: "{{n}}"\n1 error(s): ${file} does not load\n`,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
  });

  it('says a missing binary makes the pack unavailable, and that the grant names an unavailable pack', async () => {
    const file = write(
      'missing.yaml',
      'command_packs:\n  - id: dev\n    requires: [{ binary: no-such-binary-xyz }]\n    commands:\n      - { id: run, effects: read, argv: [no-such-binary-xyz] }\nagents:\n  - { id: me, grants: ["pack:dev"] }\n',
    );
    const r = await run(['packs', 'check', file]);
    expect(r.stdout).toBe(
      [
        `${file}:3:16: pack "dev" is unavailable because no-such-binary-xyz is not on PATH; install no-such-binary-xyz, or mark the pack optional: true`,
        `${file}:7:24: agent "me": grant "pack:dev" names an unavailable pack: "dev" is unavailable because no-such-binary-xyz is not on PATH`,
        `2 error(s): ${file} does not load`,
        '',
      ].join('\n'),
    );
    expect(r.stdout).not.toContain('matches no pack');
  });

  it('names the expected shape with an example, and reports a bad command id with its template errors', async () => {
    const file = write(
      'shapes.yaml',
      "command_packs:\n  - id: dev\n    commands:\n      - id: Bad_Id\n        output: json\n        argv: [echo, '{{credential.t}}']\n",
    );
    const r = await run(['packs', 'check', file]);
    expect(r.stdout).toBe(
      [
        `${file}:4:13: command_packs[0].commands[0].id: expected a command id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _), found "Bad_Id"; e.g. id: status`,
        `${file}:5:17: command_packs[0].commands[0].output: expected a map, found "json"; e.g. output: { parse: json }`,
        `${file}:6:23: command_packs[0].commands[0].argv[1]: {{credential.t}} puts a credential in argv, where ps and audit logs can read it; expected credentials in the pack's env only (env: { TOKEN: '{{credential.t}}' })`,
        `3 error(s): ${file} does not load`,
        '',
      ].join('\n'),
    );
  });

  it('warns about an element a leading dash would be refused in, naming both fixes', async () => {
    const file = write(
      'dash.yaml',
      "# Unconfined: where no sandbox works, check would also warn about that.\nsandbox_mode: off\ncommand_packs:\n  - id: dev\n    commands:\n      - id: grep\n        effects: read\n        argv: [grep, '{{pattern}}', file.txt]\n",
    );
    const r = await run(['packs', 'check', file]);
    expect(r.stdout).toBe(
      `warning: ${file}:8:22: argv[1] starts with {{pattern}}, so a value beginning with "-" (e.g. "-v") is refused when the command runs, though input "pattern" does not say so to the model; give the input a pattern that forbids a leading dash (pattern: "^[^-]"), or put a literal "--" element before it and set allow_leading_dash: true if grep honours "--"\nok: ${file}: 1 pack(s), 0 agent(s)\n`,
    );
    expect(r.code).toBe(0);
  });
});

describe('harness packs render', () => {
  it('shows the argv a call would run, its cwd and env with credentials as markers, and runs nothing', async () => {
    const file = write(
      'render.yaml',
      "command_packs:\n  - id: dev\n    credentials_ref: [token]\n    env: { GH_TOKEN: '{{credential.token}}' }\n    commands:\n      - id: touch\n        argv: [touch, --, '{{file}}']\n        inputs: { file: { pattern: '^[^-]' } }\n",
    );
    const r = await run([
      'packs',
      'render',
      'dev.touch',
      '--args',
      '{"file":"made-by-render"}',
      '--workspace',
      file,
    ]);
    expect(r.stdout).toBe(
      `argv: ["touch","--","made-by-render"]\ncwd:  ${join(box.root, 'ws')}\nenv:  GH_TOKEN=[credential token]\n(not run)\n`,
    );
    expect(r.code).toBe(0);
    expect(existsSync(join(box.root, 'ws', 'made-by-render'))).toBe(false);
  });

  it('refuses what a run would refuse, and works on the example workspace by default', async () => {
    const refused = await run(['packs', 'render', 'repo.grep', '--args', '{"pattern":"-v"}']);
    expect(refused.stdout).toMatch(
      /^refused: repo\.grep: argv element 3 would start with the value of pattern/,
    );
    expect(refused.code).toBe(1);
    const ok = await run(['packs', 'render', 'repo.grep', '--args', '{"pattern":"TODO"}', '--json']);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, argv: ['grep', '-rn', '--', 'TODO', 'data'] });
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

/** A workspace of one pack the example workspace does not have, for the agent `me`. */
const mine = () =>
  write(
    'mine.yaml',
    'version: 1\ncommand_packs:\n  - id: mine\n    commands:\n      - id: hello\n        argv: [echo, hello]\n        effects: read\nagents:\n  - id: me\n    grants: [pack:mine]\n',
  );

/** Every file under `dir` with its size and modification time; empty when `dir` does not exist. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(dir, path)] = `${statSync(path).size} ${statSync(path).mtimeMs}`;
    }
  };
  if (existsSync(dir)) walk(dir);
  return files;
}

const MINE_LISTING = [
  'loom.compose(request_id: string, components: {...}[], loom_id?: string, expected_version?: integer) -> {receipt, replayed, current_version, displaced}  [write, global]',
  'loom.inspect(loom_id?: string) -> {loom_id, version, components, layout}  [read, loom]',
  'loom.authoring-context(loom_id?: string) -> {receipts, target, target_unavailable}  [read, global]',
  'mine.hello()  [read, global]',
  '(4 command(s); hidden 0, omitted 0)',
  '',
].join('\n');

describe('harness packs list, check and render create and change nothing', () => {
  it('lists a workspace for an agent without creating the default instance, so a later plain list still shows the example', async () => {
    const home = join(box.root, 'home-list');
    const file = mine();
    const listed = await run(['packs', 'list', '--workspace', file, '--agent', 'me'], home);
    expect(listed.stdout).toBe(MINE_LISTING);
    expect(listed.code).toBe(0);
    const instance = join(home, '.local', 'share', 'harness', 'default');
    // Where no sandbox works (bwrap missing), the one line more is the unconfined warning.
    const said = listed.stderr
      .split('\n')
      .filter((line) => !(line.startsWith('harness: warning: ') && line.includes('run unconfined')));
    expect(said.join('\n')).toBe(
      `harness: read what a new instance at ${instance} would serve, agent "me" of ${file}; nothing is created\n`,
    );
    expect(existsSync(instance)).toBe(false);
    // Nothing at all under HOME: no instance, no registry of instances.
    expect(existsSync(home)).toBe(false);
    const plain = await run(['packs', 'list'], home);
    expect(plain.stdout).toContain('echo.argv(value: string)  [read, global]');
    expect(plain.stdout).not.toContain('mine.hello');
    expect(existsSync(home)).toBe(false);
  });

  it('lists what an existing instance serves and leaves every file of it as it was', async () => {
    const instance = join(box.root, 'kept');
    const made = await run(['call', 'list_commands', '--instance', instance, '--agent', 'reader']);
    expect(made.code, made.stderr).toBe(0);
    const before = snapshot(instance);
    expect(Object.keys(before)).toContain('loom.db');
    const listed = await run(['packs', 'list', '--instance', instance]);
    expect(listed.stdout).toContain('repo.log(count: integer)');
    expect(listed.stdout).not.toContain('repo.tag(');
    expect(listed.stderr).toContain(
      `harness: read what the instance ${instance} serves, agent "reader" of ${join(appDir, 'dist', 'examples', 'demo', 'workspace.yaml')}, through a scratch copy; the instance is not changed\n`,
    );
    expect(snapshot(instance)).toEqual(before);
  });

  it("refuses a --workspace other than the existing instance's, as serve does, changing nothing", async () => {
    const instance = join(box.root, 'kept-ws');
    await run(['call', 'list_commands', '--instance', instance]);
    const before = snapshot(instance);
    const r = await run(['packs', 'list', '--instance', instance, '--workspace', mine(), '--agent', 'me']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('pass a new --instance <dir> for this one');
    expect(r.stdout).toBe('');
    expect(snapshot(instance)).toEqual(before);
  });

  it('checks and renders without writing anything under HOME', async () => {
    const home = join(box.root, 'home-check');
    expect((await run(['packs', 'check', mine()], home)).code).toBe(0);
    const rendered = await run(['packs', 'render', 'mine.hello', '--workspace', mine()], home);
    expect(rendered.stdout).toContain('argv: ["echo","hello"]\n');
    expect(existsSync(home)).toBe(false);
  });
});

describe('harness packs list <file>', () => {
  it('takes the workspace file as a positional, as packs check does', async () => {
    const file = mine();
    const positional = await run(['packs', 'list', file, '--agent', 'me'], join(box.root, 'home-pos'));
    expect(positional.stdout).toBe(MINE_LISTING);
    expect(positional.code).toBe(0);
    const both = await run(
      ['packs', 'list', file, '--workspace', file, '--agent', 'me'],
      join(box.root, 'home-pos'),
    );
    expect(both.stdout).toBe(MINE_LISTING);
  });

  it('refuses two different workspace files, naming both, exit 2', async () => {
    const file = mine();
    const other = join(box.root, 'ws', 'other.yaml');
    for (const verb of ['list', 'check']) {
      const r = await run(['packs', verb, file, '--workspace', other]);
      expect(r.stderr).toBe(
        `harness: packs ${verb} was given two workspace files, ${file} and --workspace ${other}; give one\n`,
      );
      expect(r.stdout).toBe('');
      expect(r.code).toBe(2);
    }
  });

  it('checks the file --workspace names, as packs list does', async () => {
    const file = mine();
    const r = await run(['packs', 'check', '--workspace', file]);
    expect(r.stdout).toContain(`ok: ${file}: 1 pack(s), 1 agent(s)\n  agent me: mine.hello\n`);
    expect(r.code).toBe(0);
  });
});

describe('harness packs list --standard', () => {
  it('shows every bundled pack with its commands as a model reads them, with no configuration', async () => {
    const r = await run(['packs', 'list', '--standard']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(
      '  files.read(path: string, start?: integer = 1, count?: integer = 400)  [read, global]  cautious, runs awk',
    );
    expect(lines).toContain(
      '  jq.query(filter: string, file: string, raw?: boolean = false)  [read, global]  cautious, runs jq',
    );
    expect(lines).toContain('  make.run(target: string)  [write, global]  cautious, runs make');
    expect(lines.filter((l) => /^[a-z-]+: /.test(l)).map((l) => l.split(':')[0])).toEqual(
      expect.arrayContaining(['files', 'jq', 'make', 'search']),
    );
    expect(lines.at(-2)).toMatch(
      /^\(\d+ standard pack\(s\); declare one under command_packs as "- standard: <name>"\)$/,
    );
    const json = JSON.parse((await run(['packs', 'list', '--standard', '--json'])).stdout);
    const search = json.packs.find((p: { id: string }) => p.id === 'search');
    expect(search.commands[0]).toMatchObject({ id: 'search.grep', effect: 'read', tier: 'cautious' });
    expect(search.commands[0].signature).toMatch(/^search\.grep\(pattern: string, /);
  });
});
