// The standard packs on the real binaries: every command through the real loader and runPackCommand
// against a project this file builds, asserting the bytes a model reads; every string input fed the
// naughty-strings corpus, leading dashes and path escapes; a hostile directory.
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '@harness/exec';
import { findBinary, needs, tempDir } from '@harness/test-utils';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  formatIssue,
  loadPacks,
  type PackCommand,
  type PackRunOutcome,
  type PackSet,
  renderPackCommand,
  runPackCommand,
} from '../src/index';
import { expectedElements, naughtyCorpus, renderEveryValue, stringInputs } from './naughty';

const project = tempDir('standard-packs-');
const elsewhere = tempDir('standard-packs-outside-');
afterAll(() => {
  project.cleanup();
  elsewhere.cleanup();
});
const root = project.path;
const write = (path: string, text: string) => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
  chmodSync(join(root, path), 0o644);
  // A fixed time, so that stat's answer is the same bytes on every run.
  utimesSync(join(root, path), new Date('2024-01-02T03:04:05Z'), new Date('2024-01-02T03:04:05Z'));
};
write('README.md', '# Demo\n\nA project to search. TODO: write more.\n');
write('package.json', '{"name":"demo","version":"1.0.0","scripts":{"build":"tsc","test":"vitest"}}\n');
write('src/index.ts', 'export const a = 1; // TODO: one\nexport const b = 2;\nexport const c = 3;\n');
write('src/util/strings.ts', 'export function up(s: string) {\n  return s.toUpperCase(); // todo: two\n}\n');
write('src/util/notes.md', 'a.b matches a-b as a regex\n');
write(
  'Makefile',
  `hello:\n\t@echo hello from make\nbuilt:\n\t@echo built > out.txt\n\t@echo wrote out.txt\noutside:\n\t@echo x > ${join(elsewhere.path, 'made-by-make')}\n`,
);
mkdirSync(join(root, '.git'));
writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
writeFileSync(join(elsewhere.path, 'secret.txt'), 'secret\n');
symlinkSync('/usr', join(root, 'escape'));
symlinkSync('src/index.ts', join(root, 'index-link'));

const workspaceText = `command_packs:
  - standard: files
  - standard: search
  - standard: jq
  - standard: make
    input_overrides: { run: { target: { enum: [hello, built, outside] } } }
`;

async function load(text: string, options: { path?: string } = {}): Promise<PackSet> {
  const r = await loadPacks(
    { text, file: join(root, 'workspace.yaml') },
    options.path === undefined ? {} : { path: options.path },
  );
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.packs;
}

/** Runs a command and returns what the model reads: the output, or the failure. */
async function answer(ws: PackSet, id: string, args: Record<string, unknown>, path?: string) {
  const r = await runPackCommand(ws, id, args, path === undefined ? {} : { path });
  if (!r.ok) return { refused: r.issues.map((i) => i.details) };
  const o: PackRunOutcome = r.outcome;
  return o.ok ? { output: o.output, stderr: o.stderr } : { status: o.status, message: o.message };
}

// A PATH that has grep but not rg, so search.grep takes its grep variant.
const grepOnly = join(elsewhere.path, 'bin');
mkdirSync(grepOnly);
for (const bin of ['grep', 'bwrap']) {
  const at = findBinary(bin);
  if (at) symlinkSync(at, join(grepOnly, bin));
}

needs('find', 'awk', 'stat', 'wc').describe('standard pack files, on the real binaries', () => {
  it('list shows a directory down to a depth, sorted, directories with "/", symlinks with their target', async () => {
    const ws = await load(workspaceText);
    expect(await answer(ws, 'files.list', {})).toMatchInlineSnapshot(`
      {
        "output": [
          "./.git/",
          "./Makefile",
          "./README.md",
          "./escape -> /usr",
          "./index-link -> src/index.ts",
          "./package.json",
          "./src/",
        ],
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'files.list', { path: 'src', depth: 2 })).toMatchInlineSnapshot(`
      {
        "output": [
          "src/index.ts",
          "src/util/",
          "src/util/notes.md",
          "src/util/strings.ts",
        ],
        "stderr": "",
      }
    `);
  });

  it('read shows numbered lines, a range of them on request', async () => {
    const ws = await load(workspaceText);
    expect(await answer(ws, 'files.read', { path: 'src/index.ts' })).toMatchInlineSnapshot(`
      {
        "output": "     1	export const a = 1; // TODO: one
           2	export const b = 2;
           3	export const c = 3;
      ",
        "stderr": "",
      }
    `);
    expect(
      await answer(ws, 'files.read', { path: 'src/index.ts', start: 2, count: 1 }),
    ).toMatchInlineSnapshot(`
      {
        "output": "     2	export const b = 2;
      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'files.read', { path: 'index-link' })).toMatchInlineSnapshot(`
      {
        "output": "     1	export const a = 1; // TODO: one
           2	export const b = 2;
           3	export const c = 3;
      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'files.read', { path: 'missing.txt' })).toMatchInlineSnapshot(`
      {
        "message": "files.read exited with code 2: awk: fatal: cannot open file \`./missing.txt' for reading: No such file or directory",
        "status": "exit_nonzero",
      }
    `);
  });

  it('stat shows type, size, mode and time in UTC; a symlink is described, not followed', async () => {
    const ws = await load(workspaceText);
    expect(await answer(ws, 'files.stat', { path: 'README.md' })).toMatchInlineSnapshot(`
      {
        "output": "path: README.md
      type: regular file
      size: 47
      mode: -rw-r--r--
      modified: 2024-01-02 03:04:05.000000000 +0000
      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'files.stat', { path: 'index-link' })).toMatchObject({
      output: expect.stringContaining('type: symbolic link\n'),
    });
  });

  it('find lists files by name glob, sorted, never entering .git', async () => {
    const ws = await load(workspaceText);
    expect(await answer(ws, 'files.find', { name: '*.ts' })).toMatchInlineSnapshot(`
      {
        "output": [
          "./src/index.ts",
          "./src/util/strings.ts",
        ],
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'files.find', { name: 'HEAD' })).toMatchInlineSnapshot(`
      {
        "output": [],
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'files.find', { name: '*.md', root: 'src', depth: 1 })).toEqual({
      output: [],
      stderr: '',
    });
    expect(await answer(ws, 'files.find', { name: '*.md', root: 'src', depth: 2 })).toMatchInlineSnapshot(`
      {
        "output": [
          "src/util/notes.md",
        ],
        "stderr": "",
      }
    `);
  });

  it('wc counts lines, words and bytes', async () => {
    const ws = await load(workspaceText);
    expect(await answer(ws, 'files.wc', { path: 'README.md' })).toMatchInlineSnapshot(`
      {
        "output": " 3  9 47 README.md
      ",
        "stderr": "",
      }
    `);
  });
});

needs('rg', 'grep').describe('standard pack search, on the real binaries', () => {
  it('grep runs ripgrep where it is installed: path:line:text, sorted by path', async () => {
    const ws = await load(workspaceText);
    expect(ws.packs.find((p) => p.id === 'search')?.commands[0]?.argv[0]).toBe('rg');
    expect(await answer(ws, 'search.grep', { pattern: 'TODO' })).toMatchInlineSnapshot(`
      {
        "output": "./README.md:3:A project to search. TODO: write more.
      ./src/index.ts:1:export const a = 1; // TODO: one
      ",
        "stderr": "",
      }
    `);
    expect(
      await answer(ws, 'search.grep', { pattern: 'todo', ignore_case: true, glob: '*.ts' }),
    ).toMatchInlineSnapshot(`
      {
        "output": "./src/index.ts:1:export const a = 1; // TODO: one
      ./src/util/strings.ts:2:  return s.toUpperCase(); // todo: two
      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'search.grep', { pattern: 'a.b', fixed: true })).toMatchInlineSnapshot(`
      {
        "output": "./src/util/notes.md:1:a.b matches a-b as a regex
      ",
        "stderr": "",
      }
    `);
    expect(
      await answer(ws, 'search.grep', { pattern: 'const b', context: 1, path: 'src' }),
    ).toMatchInlineSnapshot(`
      {
        "output": "src/index.ts-1-export const a = 1; // TODO: one
      src/index.ts:2:export const b = 2;
      src/index.ts-3-export const c = 3;
      ",
        "stderr": "",
      }
    `);
    expect(
      await answer(ws, 'search.grep', { pattern: 'export', max_count: 1, path: 'src/index.ts' }),
    ).toMatchInlineSnapshot(`
      {
        "output": "src/index.ts:1:export const a = 1; // TODO: one
      ",
        "stderr": "",
      }
    `);
  });

  it('no match is an empty answer, not a failure (exit 1 is ok)', async () => {
    const ws = await load(workspaceText);
    expect(await answer(ws, 'search.grep', { pattern: 'nothing-matches-this' })).toEqual({
      output: '',
      stderr: '',
    });
  });

  it('grep runs GNU grep where ripgrep is missing, with the same answer for one file', async () => {
    const ws = await load(workspaceText, { path: grepOnly });
    expect(ws.packs.find((p) => p.id === 'search')?.commands[0]?.argv[0]).toBe('grep');
    expect(
      await answer(ws, 'search.grep', { pattern: 'TODO', path: 'src' }, grepOnly),
    ).toMatchInlineSnapshot(`
      {
        "output": "src/index.ts:1:export const a = 1; // TODO: one
      ",
        "stderr": "",
      }
    `);
    // One directory of one .ts file: grep's order is the directory's, which differs between file systems.
    expect(
      await answer(
        ws,
        'search.grep',
        { pattern: 'todo', ignore_case: true, glob: '*.ts', path: 'src/util' },
        grepOnly,
      ),
    ).toMatchInlineSnapshot(`
      {
        "output": "src/util/strings.ts:2:  return s.toUpperCase(); // todo: two
      ",
        "stderr": "",
      }
    `);
    expect(
      await answer(ws, 'search.grep', { pattern: 'a.b', fixed: true, path: 'src' }, grepOnly),
    ).toMatchInlineSnapshot(`
      {
        "output": "src/util/notes.md:1:a.b matches a-b as a regex
      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'search.grep', { pattern: 'nothing-matches-this' }, grepOnly)).toEqual({
      output: '',
      stderr: '',
    });
  });
});

needs('jq').describe('standard pack jq, on the real binary', () => {
  it('query prints each result as compact JSON, or a string as its text with raw', async () => {
    const ws = await load(workspaceText);
    expect(await answer(ws, 'jq.query', { filter: '.name', file: 'package.json' })).toMatchInlineSnapshot(`
      {
        "output": ""demo"
      ",
        "stderr": "",
      }
    `);
    expect(
      await answer(ws, 'jq.query', { filter: '.scripts | keys[]', file: 'package.json', raw: true }),
    ).toMatchInlineSnapshot(`
        {
          "output": "build
        test
        ",
          "stderr": "",
        }
      `);
    expect(await answer(ws, 'jq.query', { filter: '.scripts', file: 'package.json' })).toMatchInlineSnapshot(`
      {
        "output": "{"build":"tsc","test":"vitest"}
      ",
        "stderr": "",
      }
    `);
  });

  it('a filter of "; rm -rf /" is one argument jq refuses as a syntax error [CP-86]', async () => {
    const ws = await load(workspaceText);
    expect(
      await answer(ws, 'jq.query', { filter: '; rm -rf /', file: 'package.json' }),
    ).toMatchInlineSnapshot(`
      {
        "message": "jq.query exited with code 3: jq: error: syntax error, unexpected ';', expecting $end (Unix shell quoting issues?) at <top-level>, line 1:",
        "status": "exit_nonzero",
      }
    `);
  });
});

needs('make').describe('standard pack make, on the real binary', () => {
  beforeEach(() => rmSync(join(root, 'out.txt'), { force: true }));

  it('run runs a listed target of the project Makefile, which may write the project', async () => {
    const ws = await load(workspaceText);
    expect(await answer(ws, 'make.run', { target: 'hello' })).toMatchInlineSnapshot(`
      {
        "output": "hello from make
      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'make.run', { target: 'built' })).toMatchInlineSnapshot(`
      {
        "output": "wrote out.txt
      ",
        "stderr": "",
      }
    `);
    expect(existsSync(join(root, 'out.txt'))).toBe(true);
  });

  it('a recipe cannot write outside the project where the sandbox works', async () => {
    const ws = await load(workspaceText);
    if (ws.sandbox.mechanism === null && process.env.CI !== 'true') {
      console.warn(`skipped: no sandbox here (${ws.sandbox.unavailable?.reason})`);
      return;
    }
    expect(await answer(ws, 'make.run', { target: 'outside' })).toMatchObject({ status: 'exit_nonzero' });
    expect(existsSync(join(elsewhere.path, 'made-by-make'))).toBe(false);
  });

  it('a target the workspace does not list is refused by name, and nothing runs', async () => {
    const ws = await load(workspaceText);
    expect(await answer(ws, 'make.run', { target: 'clean' })).toMatchInlineSnapshot(`
      {
        "refused": [
          {
            "command": "make.run",
            "expected": "one of "hello", "built", "outside"",
            "input": "target",
            "reason": "invalid_value",
          },
        ],
      }
    `);
  });
});

// ---------------------------------------------------------------------------------------------------
// Every string input of every command: naughty strings, leading dashes, path escapes.

const NAUGHTY = naughtyCorpus('--pre=./pre.sh', '{{pattern}}');

/** Arguments every required input accepts, so that one input at a time can be varied. */
const BASE: Readonly<Record<string, Record<string, unknown>>> = {
  'files.list': {},
  'files.read': { path: 'README.md' },
  'files.stat': { path: 'README.md' },
  'files.find': { name: '*.md' },
  'files.wc': { path: 'README.md' },
  'search.grep': { pattern: 'TODO' },
  'jq.query': { filter: '.', file: 'package.json' },
  'make.run': { target: 'hello' },
};

async function everyCommand(): Promise<{ ws: PackSet; command: PackCommand }[]> {
  const out: { ws: PackSet; command: PackCommand }[] = [];
  for (const ws of [await load(workspaceText), await load(workspaceText, { path: grepOnly })]) {
    for (const pack of ws.packs) for (const command of pack.commands) out.push({ ws, command });
  }
  return out;
}

describe('every string input of every standard command', () => {
  it('takes the naughty-strings corpus: each value is exactly one argv element, or refused by name [CP-31, CP-32]', async () => {
    let rendered = 0;
    let refused = 0;
    for (const { ws, command } of await everyCommand()) {
      expect(BASE[command.manifestId], command.manifestId).toBeDefined();
      const counted = renderEveryValue(ws, [command], BASE, NAUGHTY);
      rendered += counted.rendered;
      refused += counted.refused;
    }
    // Both outcomes happen: the corpus is not refused wholesale, nor let through wholesale.
    expect(rendered).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(100);
  });

  it('refuses a value starting with "-" by name, unless a literal prefix in its element makes it a value', async () => {
    for (const { ws, command } of await everyCommand()) {
      for (const input of stringInputs(command)) {
        for (const value of ['-x', '--pre=./pre.sh', '-', '--', '-delete', '--exec=sh']) {
          const r = renderPackCommand(ws, command.manifestId, {
            ...BASE[command.manifestId],
            [input]: value,
          });
          if (!r.ok) {
            expect(r.issues.map((i) => (i.details as { input?: string }).input)).toEqual([input]);
            continue;
          }
          // Let through only inside an element that starts with the pack's own text (--regexp=-x).
          for (const { index, element } of expectedElements(command, input, value)) {
            expect(r.argv[index], `${command.manifestId} ${input}`).toBe(element);
            expect(
              command.argv[index]?.startsWith(`{{${input}}}`),
              `${command.manifestId} ${input}: ${element}`,
            ).toBe(false);
          }
        }
      }
    }
  });

  it('refuses a path that leaves the project (../, absolute, a symlink out) by name, for every path input', async () => {
    let checked = 0;
    for (const { ws, command } of await everyCommand()) {
      for (const input of command.withinCwd) {
        for (const value of ['../x', 'src/../../x', '/etc/passwd', 'escape/secret.txt', 'escape']) {
          const r = renderPackCommand(ws, command.manifestId, {
            ...BASE[command.manifestId],
            [input]: value,
          });
          expect(!r.ok && r.issues.map((i) => i.details), `${command.manifestId} ${input} ${value}`).toEqual([
            expect.objectContaining({ input, reason: 'path_outside_cwd' }),
          ]);
          checked++;
        }
      }
    }
    // Eight path inputs, seven where jq is missing (its pack is left out, optional).
    expect(checked).toBeGreaterThanOrEqual(5 * (findBinary('jq') === undefined ? 7 : 8));
  });
});

// ---------------------------------------------------------------------------------------------------
// A hostile directory: a ripgrep config that runs a program, and a --pre attempt through every input.

needs('rg', 'grep', 'find', 'awk', 'stat', 'wc', 'jq').describe('a hostile directory', () => {
  const hostile = tempDir('standard-packs-hostile-');
  afterAll(() => hostile.cleanup());
  const dir = hostile.path;
  const marker = join(elsewhere.path, 'pre-ran');
  writeFileSync(join(dir, 'pre.sh'), `#!/bin/sh\necho ran >> ${JSON.stringify(marker)}\ncat "$1"\n`);
  chmodSync(join(dir, 'pre.sh'), 0o755);
  writeFileSync(join(dir, '.ripgreprc'), `--pre=${join(dir, 'pre.sh')}\n`);
  writeFileSync(join(dir, 'notes.txt'), 'TODO: hostile\n');
  writeFileSync(join(dir, 'data.json'), '{"a":1}\n');
  // The config is named to every standard pack, and no sandbox stands in the way: only argv and env do.
  const text = `command_packs:
  - standard: files
    sandbox: false
  - standard: search
    sandbox: false
    env: { RIPGREP_CONFIG_PATH: ${JSON.stringify(join(dir, '.ripgreprc'))} }
  - standard: jq
    sandbox: false
`;

  it('the config would run its program: rg without --no-config writes the marker (the control)', async () => {
    rmSync(marker, { force: true });
    await run({
      argv: ['rg', 'TODO', '.'],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', RIPGREP_CONFIG_PATH: join(dir, '.ripgreprc') },
      timeoutMs: 10_000,
      maxOutputBytes: 1 << 20,
    });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker, { force: true });
  });

  it('every read command of every pack runs there, --pre tried through every input, and no marker is written', async () => {
    rmSync(marker, { force: true });
    const r = await loadPacks({ text, file: join(dir, 'workspace.yaml') });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    const ws = r.packs;
    const calls: [string, Record<string, unknown>][] = [
      ['files.list', {}],
      ['files.read', { path: 'notes.txt' }],
      ['files.stat', { path: 'notes.txt' }],
      ['files.find', { name: '*' }],
      ['files.wc', { path: 'notes.txt' }],
      ['jq.query', { filter: '.', file: 'data.json' }],
      ['search.grep', { pattern: 'TODO' }],
      ['search.grep', { pattern: '--pre=./pre.sh' }],
      ['search.grep', { pattern: 'TODO', glob: '--pre=./pre.sh' }],
      ['search.grep', { pattern: 'TODO', path: '--pre=./pre.sh' }],
      ['search.grep', { pattern: 'TODO', glob: 'x:--pre=./pre.sh' }],
    ];
    const found = await answer(ws, 'search.grep', { pattern: 'TODO' });
    expect(found).toEqual({ output: './notes.txt:1:TODO: hostile\n', stderr: '' });
    for (const [id, args] of calls) await runPackCommand(ws, id, args);
    expect(existsSync(marker)).toBe(false);
  });
});
