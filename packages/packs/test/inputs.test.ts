import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fcRuns, tempDir } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { afterAll, describe, expect, it } from 'vitest';
import { formatIssue, listCommands, loadPacks, renderPackCommand, runPackCommand } from '../src/index';
import { pathEscape } from '../src/paths';
import { loadErrors, loadOk, onePack } from './helpers';

// A project with a file, a directory, symlinks that stay inside, symlinks that leave, a dangling one.
const project = tempDir('packs-paths-');
const outside = tempDir('packs-outside-');
afterAll(() => {
  project.cleanup();
  outside.cleanup();
});
const root = project.path;
mkdirSync(resolve(root, 'src/deep'), { recursive: true });
writeFileSync(resolve(root, 'src/a.txt'), 'a\n');
writeFileSync(resolve(outside.path, 'secret.txt'), 'secret\n');
symlinkSync('src/a.txt', resolve(root, 'inside-file'));
symlinkSync('src', resolve(root, 'inside-dir'));
symlinkSync(outside.path, resolve(root, 'outside-dir'));
symlinkSync(resolve(outside.path, 'secret.txt'), resolve(root, 'src/outside-file'));
symlinkSync('../../..', resolve(root, 'src/deep/up'));
symlinkSync('../..', resolve(root, 'src/deep/home'));
symlinkSync('nowhere', resolve(root, 'dangling'));

const cat = `command_packs:
  - id: p
    cwd: ${JSON.stringify(root)}
    commands:
      - id: cat
        argv: [cat, --, '{{path}}']
        inputs:
          path: { type: string, pattern: "^(?!-)", within_cwd: true, description: a file }
        effects: read
      - id: echo
        argv: [echo, '{{path}}']
        inputs:
          path: { type: string, description: anything, pattern: "^(?!-)" }
        effects: read
`;

describe('within_cwd: a path input stays inside the pack cwd', () => {
  it('refuses an absolute path, a .. segment and a symlink that leads outside, by name, before anything runs', async () => {
    const ws = await loadOk(cat);
    for (const [path, found] of [
      ['/etc/passwd', 'an absolute path'],
      ['../x', 'a path with a .. segment'],
      ['src/../../x', 'a path with a .. segment'],
      ['inside-dir/..', 'a path with a .. segment'],
      ['outside-dir/secret.txt', 'a path through a symlink that leads outside it (or nowhere)'],
      ['outside-dir', 'a path through a symlink that leads outside it (or nowhere)'],
      ['src/outside-file', 'a path through a symlink that leads outside it (or nowhere)'],
      ['src/deep/up/x', 'a path through a symlink that leads outside it (or nowhere)'],
      ['dangling', 'a path through a symlink that leads outside it (or nowhere)'],
    ]) {
      const r = await runPackCommand(ws, 'p.cat', { path });
      expect(r.ok, path).toBe(false);
      if (r.ok) continue;
      expect(r.issues[0]?.details, path).toEqual({
        command: 'p.cat',
        input: 'path',
        reason: 'path_outside_cwd',
        expected: 'a path inside the working directory, relative to it',
        found,
      });
      expect(r.issues[0]?.message).not.toContain(path);
    }
  });

  it('lets through paths inside, through symlinks that stay inside, and paths that do not exist yet', async () => {
    const ws = await loadOk(cat);
    for (const path of [
      'src/a.txt',
      './src/a.txt',
      'inside-file',
      'inside-dir/a.txt',
      'new/file',
      '.',
      'src/deep',
      'src/deep/home/src',
    ]) {
      expect(renderPackCommand(ws, 'p.cat', { path }).ok, path).toBe(true);
    }
    const r = await runPackCommand(ws, 'p.cat', { path: 'inside-dir/a.txt' });
    expect(r.ok && r.outcome.stdout).toBe('a\n');
  });

  it('leaves an input without within_cwd alone: packs do not confine paths unless asked [CP-78]', async () => {
    const ws = await loadOk(cat);
    const r = renderPackCommand(ws, 'p.echo', { path: '/etc/passwd' });
    expect(r.ok && r.argv).toEqual(['echo', '/etc/passwd']);
  });

  it('is not shown to the model', async () => {
    const ws = await loadOk(cat);
    expect(listCommands(ws)[0]?.inputs.properties.path).toEqual({
      type: 'string',
      pattern: '^(?!-)',
      description: 'a file',
    });
  });

  it('applies to string inputs only', async () => {
    expect(
      await loadErrors(
        onePack(
          `      - id: a\n        argv: [cat, '{{n}}']\n        inputs: { n: { type: integer, within_cwd: true } }\n`,
        ),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:6:51: command_packs[0].commands[0].inputs.n.within_cwd: expected within_cwd on a string input only (a path is a string), found boolean true; e.g. within_cwd: true",
      ]
    `);
  });

  test.prop(
    [
      fc.array(
        fc.constantFrom(
          'src',
          'a.txt',
          'deep',
          '..',
          '.',
          '',
          'inside-dir',
          'outside-dir',
          'up',
          'x',
          'dangling',
        ),
        {
          minLength: 1,
          maxLength: 6,
        },
      ),
    ],
    { numRuns: fcRuns(400) },
  )('a path it lets through resolves, as the kernel resolves it, inside the cwd', (segments) => {
    const value = segments.join('/');
    if (pathEscape(value, root) !== undefined) return;
    // The deepest prefix that exists, resolved by the kernel (realpath), must lie inside the root.
    const real = realpathSync(root);
    let probe = resolve(root, value);
    for (;;) {
      try {
        const at = realpathSync(probe);
        expect(at === real || at.startsWith(`${real}/`), value).toBe(true);
        return;
      } catch {
        const up = resolve(probe, '..');
        if (up === probe) return;
        probe = up;
      }
    }
  });
});

describe('default: a value the pack gives when a call leaves the input out', () => {
  const text = onePack(`      - id: log
        argv: [git, log, -n, '{{count}}']
        inputs:
          count: { type: integer, minimum: 1, maximum: 100, default: 10, description: how many }
        effects: read
`);

  it('makes the input optional, fills its slot, and shows the default to the model', async () => {
    const ws = await loadOk(text);
    expect(listCommands(ws)[0]?.inputs).toMatchObject({
      required: [],
      properties: { count: { type: 'integer', default: 10 } },
    });
    const r = renderPackCommand(ws, 'p.log', {});
    expect(r.ok && r.argv).toEqual(['git', 'log', '-n', '10']);
    const given = renderPackCommand(ws, 'p.log', { count: 3 });
    expect(given.ok && given.argv).toEqual(['git', 'log', '-n', '3']);
  });

  it('must be a value its input accepts', async () => {
    expect(await loadErrors(text.replace('default: 10', 'default: 0'))).toMatchInlineSnapshot(`
      [
        "workspace.yaml:7:70: command_packs[0].commands[0].inputs.count.default: expected a default that input "count" accepts (at least 1), found 0",
      ]
    `);
    expect(
      await loadErrors(
        onePack(
          `      - id: a\n        argv: [cat, '{{f}}']\n        inputs: { f: { type: string, within_cwd: true, default: /etc/passwd } }\n`,
        ),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:6:65: command_packs[0].commands[0].inputs.f.default: expected a default that input "f" accepts (a path inside the working directory), found an absolute path",
      ]
    `);
  });
});

describe('values: the literal text a boolean or enum input renders as', () => {
  const text = onePack(`      - id: grep
        argv: [grep, '--{{fixed}}', '--{{mode}}', --, '{{pattern}}']
        inputs:
          fixed: { type: boolean, default: false, description: plain text }
          mode: { type: string, enum: [count, list], default: list, description: what to print }
          pattern: { type: string, description: what to find, allow_leading_dash: true }
        values:
          fixed: { "true": fixed-strings, "false": basic-regexp }
          mode: { count: count, list: files-with-matches }
        effects: read
`);

  it("puts the pack's text in argv, never the caller's value", async () => {
    const ws = await loadOk(text);
    const r = renderPackCommand(ws, 'p.grep', { fixed: true, pattern: '-x' });
    expect(r.ok && r.argv).toEqual(['grep', '--fixed-strings', '--files-with-matches', '--', '-x']);
    const d = renderPackCommand(ws, 'p.grep', { mode: 'count', pattern: 'a' });
    expect(d.ok && d.argv).toEqual(['grep', '--basic-regexp', '--count', '--', 'a']);
  });

  it('maps every value the input takes, and only a boolean or enum input', async () => {
    expect(
      await loadErrors(
        text.replace('mode: { count: count, list: files-with-matches }', 'mode: { count: count, all: x }'),
      ),
    ).toMatchInlineSnapshot(`
        [
          "workspace.yaml:12:17: command_packs[0].commands[0].values.mode: expected a text for each value input "mode" takes (count, list); missing list; all is not a value it takes",
        ]
      `);
    expect(
      await loadErrors(
        text.replace('          mode: { count', '          pattern: { a: b }\n          mode: { count'),
      ),
    ).toMatchInlineSnapshot(`
        [
          "workspace.yaml:12:20: command_packs[0].commands[0].values.pattern: values maps only a boolean input or one with an enum; "pattern" is a string input with no enum",
        ]
      `);
  });
});

describe('variants: the first way to run a command that this machine can', () => {
  const text = (first: string) => `command_packs:
  - id: p
    optional: OPTIONAL
    commands:
      - id: hello
        inputs: { who: { type: string, pattern: "^[a-z]+$", description: who } }
        variants:
          - requires: [{ binary: ${first} }]
            argv: [${first}, '{{who}}']
          - requires: [{ binary: echo }]
            argv: [echo, hello, '{{who}}']
        effects: read
`;

  it('uses the first variant whose requirements hold', async () => {
    const r = await loadPacks({
      text: text('no-such-binary-xyz').replace('OPTIONAL', 'false'),
      file: 'workspace.yaml',
    });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    const run = await runPackCommand(r.packs, 'p.hello', { who: 'ada' });
    expect(run.ok && [run.outcome.argv, run.outcome.stdout]).toEqual([
      ['echo', 'hello', 'ada'],
      'hello ada\n',
    ]);
  });

  it('leaves an optional pack out, or fails the load, when no variant can run, naming each', async () => {
    const none = text('no-such-binary-xyz').replace('binary: echo', 'binary: no-such-binary-abc');
    const left = await loadPacks({ text: none.replace('OPTIONAL', 'true'), file: 'workspace.yaml' });
    expect(left.ok && left.packs.unavailable.map((u) => [u.id, u.reason])).toMatchInlineSnapshot(`
      [
        [
          "p",
          "p.hello runs none of its variants here (no-such-binary-xyz is not installed (not found on PATH); no-such-binary-abc is not installed (not found on PATH))",
        ],
      ]
    `);
    const failed = await loadPacks({ text: none.replace('OPTIONAL', 'false'), file: 'workspace.yaml' });
    expect(failed.ok ? [] : failed.issues.map(formatIssue)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:8:24: pack "p" is unavailable because p.hello runs none of its variants here (no-such-binary-xyz is not installed (not found on PATH); no-such-binary-abc is not installed (not found on PATH)); install no-such-binary-xyz or no-such-binary-abc, or mark the pack optional: true",
      ]
    `);
  });

  it('declares its inputs (every variant renders the same ones) and never an argv beside them', async () => {
    expect(
      await loadErrors(
        onePack(`      - id: a\n        argv: [echo]\n        variants: [{ argv: [echo] }]\n`),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:9: command_packs[0].commands[0].inputs: expected inputs declared beside variants (every variant renders the same inputs), found nothing; e.g. inputs: { count: { type: integer, minimum: 1 } }",
        "workspace.yaml:6:19: command_packs[0].commands[0].variants: expected argv or variants, not both (each variant has its own argv), found a list of 1; e.g. variants: [{ requires: [{ binary: rg }], argv: [rg, --, "{{pattern}}"] }, { argv: [grep, -r, --, "{{pattern}}", .] }]",
      ]
    `);
  });
});

describe('input_overrides and enum_from_workspace', () => {
  const make = `command_packs:
  - id: make
    OVERRIDES
    commands:
      - id: run
        argv: [make, --, '{{target}}']
        inputs:
          target: { type: string, pattern: "^[a-z]+$", enum_from_workspace: true, description: the target }
        effects: write
`;

  it('a command whose input takes its values from the workspace is not offered until the workspace lists them, with a warning saying what to add', async () => {
    const r = await loadPacks(
      { text: make.replace('OVERRIDES', 'description: m'), file: 'workspace.yaml' },
      { probe: false },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(listCommands(r.packs)).toEqual([]);
    expect(r.packs.packs[0]?.unlisted).toEqual([{ command: 'make.run', input: 'target' }]);
    expect(r.warnings.map(formatIssue)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:2:5: command_packs[0]: make.run is not offered: it takes input "target" from a list this workspace gives, and it gives none; to offer it, add input_overrides: { run: { target: { enum: [...] } } }",
      ]
    `);
    const ws = await loadOk(
      make.replace('OVERRIDES', 'input_overrides: { run: { target: { enum: [build, test] } } }'),
    );
    expect(listCommands(ws)[0]?.inputs.properties.target).toEqual({
      type: 'string',
      pattern: '^[a-z]+$',
      enum: ['build', 'test'],
      description: 'the target',
    });
    const refused = renderPackCommand(ws, 'make.run', { target: 'clean' });
    expect(!refused.ok && refused.issues[0]?.details).toMatchObject({
      reason: 'invalid_value',
      input: 'target',
    });
  });

  it('an override naming no command or no input fails the load at its key', async () => {
    expect(
      await loadErrors(
        make.replace(
          'OVERRIDES',
          'input_overrides: { nope: { x: { enum: [a] } }, run: { tagret: { enum: [a] }, target: { enum: [a] } } }',
        ),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:24: input_overrides key "nope" names no command of pack "make"; expected one of run",
        "workspace.yaml:3:59: input_overrides key "run.tagret" names no input of make.run; expected one of target",
      ]
    `);
  });

  it('a default given by an override makes the input optional', async () => {
    const ws = await loadOk(
      make.replace(
        'OVERRIDES',
        'input_overrides: { run: { target: { enum: [build, test], default: test } } }',
      ),
    );
    expect(listCommands(ws)[0]?.inputs.required).toEqual([]);
    const r = renderPackCommand(ws, 'make.run', {});
    expect(r.ok && r.argv).toEqual(['make', '--', 'test']);
  });
});

describe('output sort', () => {
  it('sorts the lines of parse: lines output, and only that', async () => {
    const ws = await loadOk(
      onePack(
        `      - id: l\n        argv: [printf, 'b\\nc\\na\\n']\n        effects: read\n        output: { parse: lines, sort: true }\n`,
      ),
    );
    const r = await runPackCommand(ws, 'p.l', {});
    expect(r.ok && r.outcome.output).toEqual(['a', 'b', 'c']);
    expect(
      await loadErrors(
        onePack(`      - id: l\n        argv: [printf, x]\n        output: { parse: text, sort: true }\n`),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:6:38: command_packs[0].commands[0].output.sort: expected sort only with parse: lines, found boolean true; e.g. sort: true",
      ]
    `);
  });
});
