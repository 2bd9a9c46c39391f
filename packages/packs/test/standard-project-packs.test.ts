// The standard packs that run a project's own tooling (node, python, rust) and the GitHub one (gh),
// on the real binaries: each command through the real loader and runPackCommand against a project
// this file builds (the bytes a model reads); every string input fed the naughty-strings corpus,
// leading dashes and path escapes; hostile projects (an .npmrc and a .yarnrc naming a script shell,
// a conftest.py). gh cannot reach GitHub here: its commands are checked by the argv they render,
// through a stand-in gh that reports what it was given, and through the real gh up to the point
// where it would need the network.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { binary, findBinary, needs, sandboxMechanism, tempDir, working } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  credentialsFrom,
  formatIssue,
  loadPacks,
  type PackCommand,
  type PackSet,
  previewPackCall,
  renderPackCommand,
  runCommandPreview,
  runPackCommand,
} from '../src/index';
import { type CountingListener, listenCounting } from './listener';
import { expectedElements, naughtyCorpus, renderEveryValue, stringInputs } from './naughty';

/** The first directory on PATH whose python3 imports `module`, if any. */
function dirWithPython(module: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir === '' || !existsSync(join(dir, 'python3'))) continue;
    try {
      execFileSync(join(dir, 'python3'), ['-c', `import ${module}`], { stdio: 'ignore', timeout: 30_000 });
      return dir;
    } catch {}
  }
  return undefined;
}

const TOKEN = 'ghp_standardProjectPacksTestToken0123456789';
const PATH = process.env.PATH ?? '/usr/bin:/bin';
const scratch = tempDir('standard-project-packs-');
const elsewhere = tempDir('standard-project-packs-outside-');
afterAll(() => {
  scratch.cleanup();
  elsewhere.cleanup();
});

/** Writes `files` (path → text; a text starting with "#!" is made executable) under `dir`. */
function tree(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
    chmodSync(join(dir, path), text.startsWith('#!') ? 0o755 : 0o644);
  }
  return dir;
}

/** A new project directory under the scratch directory. */
function project(name: string, files: Record<string, string>): string {
  const dir = join(scratch.path, name);
  mkdirSync(dir);
  return tree(dir, files);
}

async function load(
  dir: string,
  text: string,
  options: { path?: string; probe?: boolean } = {},
): Promise<PackSet> {
  const r = await loadPacks(
    { text, file: join(dir, 'workspace.yaml') },
    {
      credentials: credentialsFrom({ gh_token: TOKEN }),
      ...(options.path === undefined ? {} : { path: options.path }),
      ...(options.probe === undefined ? {} : { probe: options.probe }),
    },
  );
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.packs;
}

/** A working sandbox, for the tests of what a confined command cannot do. */
const SANDBOX = sandboxMechanism(detectSandbox());

/** Program output with what changes from run to run (times, temp paths, thread ids) replaced. */
function stable(text: string): string {
  return text
    .replaceAll(scratch.path, '<scratch>')
    .replace(/\b\d+(\.\d+)?(ms|s)\b/g, '<time>')
    .replace(/ \(\d+\) panicked/g, ' panicked');
}

/** Runs a command and returns what the model reads: the output and exit code, or the failure. */
async function answer(
  ws: PackSet,
  id: string,
  args: Record<string, unknown>,
  options: { path?: string } = {},
) {
  const r = await runPackCommand(ws, id, args, {
    credentials: credentialsFrom({ gh_token: TOKEN }),
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  if (!r.ok) return { refused: r.issues.map((i) => i.details) };
  const o = r.outcome;
  return o.ok
    ? {
        exitCode: o.exitCode,
        output: typeof o.output === 'string' ? stable(o.output) : o.output,
        stderr: stable(o.stderr),
      }
    : { status: o.status, exitCode: o.exitCode, stdout: stable(o.stdout), stderr: stable(o.stderr) };
}

// ---------------------------------------------------------------------------------------------------
// node

const NODE_ENTRY = `  - standard: node
    input_overrides:
      run: { script: { enum: [greet, lint] } }
      exec_bin: { bin: { enum: [greet, missing] } }
`;

/** A node project whose test script reports each check and exits 1 when one fails. */
function nodeProject(name: string, failing: boolean, extra: Record<string, string> = {}): string {
  return project(name, {
    'package.json': `${JSON.stringify({
      name,
      version: '1.0.0',
      private: true,
      scripts: {
        test: 'node test/run.js',
        greet: 'node -e "console.log(\'hello from a script\')"',
        lint: 'node -e "console.error(\'src/a.js: 1 problem\'); process.exit(1)"',
        postinstall: "node -e \"require('fs').writeFileSync('postinstall-ran', '')\"",
      },
    })}\n`,
    'package-lock.json': `${JSON.stringify({
      name,
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name, version: '1.0.0' } },
    })}\n`,
    'test/run.js': `const checks = [['adds', 1 + 1 === 2], ['multiplies', 2 * 2 === ${failing ? 5 : 4}]];
for (const [name, ok] of checks) console.log(\`\${ok ? 'ok' : 'not ok'} \${name}\`);
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
`,
    'node_modules/greet/cli.js': `#!/usr/bin/env node
console.log(JSON.stringify(process.argv.slice(2)));
`,
    ...extra,
  });
}

needs('node', 'npm', 'sh').describe('standard pack node, on the real npm', () => {
  let passing: string;
  let failing: string;
  beforeAll(() => {
    passing = nodeProject('node-passing', false);
    failing = nodeProject('node-failing', true);
    mkdirSync(join(passing, 'node_modules', '.bin'));
    symlinkSync('../greet/cli.js', join(passing, 'node_modules', '.bin', 'greet'));
  });
  const text = `command_packs:\n${NODE_ENTRY}`;

  it('test runs the project test script with npm, confined, and answers with what it printed', async () => {
    const ws = await load(passing, text);
    expect(ws.packs[0]?.commands.map((c) => [c.id, c.tier, c.effects])).toEqual([
      ['test', 'cautious', 'write'],
      ['run', 'cautious', 'write'],
      ['install', 'strict', 'write'],
      ['exec_bin', 'cautious', 'write'],
      ['lockfile_diff', 'cautious', 'read'],
    ]);
    expect(await answer(ws, 'node.test', {})).toMatchInlineSnapshot(`
      {
        "exitCode": 0,
        "output": "
      > node-passing@1.0.0 test
      > node test/run.js

      ok adds
      ok multiplies
      ",
        "stderr": "",
      }
    `);
  });

  it('a failing test suite is tests_failed: exit code 1 is not ok, the runner report kept whole', async () => {
    const ws = await load(failing, text);
    expect(await answer(ws, 'node.test', {})).toMatchInlineSnapshot(`
      {
        "exitCode": 1,
        "status": "tests_failed",
        "stderr": "",
        "stdout": "
      > node-failing@1.0.0 test
      > node test/run.js

      ok adds
      not ok multiplies
      ",
      }
    `);
  });

  it('run runs a listed package.json script; a script reporting problems (exit 1) is problems_found, with what it printed', async () => {
    const ws = await load(passing, text);
    expect(await answer(ws, 'node.run', { script: 'greet' })).toMatchInlineSnapshot(`
      {
        "exitCode": 0,
        "output": "
      > node-passing@1.0.0 greet
      > node -e "console.log('hello from a script')"

      hello from a script
      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'node.run', { script: 'lint' })).toMatchInlineSnapshot(`
      {
        "exitCode": 1,
        "status": "problems_found",
        "stderr": "src/a.js: 1 problem
      ",
        "stdout": "
      > node-passing@1.0.0 lint
      > node -e "console.error('src/a.js: 1 problem'); process.exit(1)"

      ",
      }
    `);
  });

  it('run refuses a script the workspace does not list, by name, and runs nothing', async () => {
    const ws = await load(passing, text);
    expect(await answer(ws, 'node.run', { script: 'postinstall' })).toMatchInlineSnapshot(`
      {
        "refused": [
          {
            "command": "node.run",
            "expected": "one of "greet", "lint"",
            "input": "script",
            "reason": "invalid_value",
          },
        ],
      }
    `);
  });

  it('exec_bin runs a listed node_modules/.bin binary, each value argument one argv element', async () => {
    const ws = await load(passing, text);
    expect(
      await answer(ws, 'node.exec_bin', { bin: 'greet', arg1: 'a b', arg3: '$(touch x); *' }),
    ).toMatchInlineSnapshot(`
      {
        "exitCode": 0,
        "output": "["a b","$(touch x); *"]
      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'node.exec_bin', { bin: 'missing' })).toMatchInlineSnapshot(`
      {
        "exitCode": 127,
        "status": "exit_nonzero",
        "stderr": "node_modules/.bin/missing is not installed: install the project's dependencies first (node.install)
      ",
        "stdout": "",
      }
    `);
  });

  it('install installs what the lockfile pins, running no install script unless scripts: true', async () => {
    const ws = await load(passing, text);
    // The only command with the network (unconfined altogether where no sandbox works).
    expect(ws.packs[0]?.commands.map((c) => c.sandbox?.network ?? null)).toEqual(
      ws.sandbox.mechanism === null
        ? [null, null, null, null, null]
        : ['none', 'none', 'host', 'none', 'none'],
    );
    const marker = join(passing, 'postinstall-ran');
    expect(await answer(ws, 'node.install', {})).toMatchObject({ exitCode: 0 });
    expect(existsSync(marker)).toBe(false);
    expect(await answer(ws, 'node.install', { scripts: true })).toMatchObject({ exitCode: 0 });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });
});

needs('node', 'npm', 'sh', 'git').describe("node.install's approval preview", () => {
  it('shows how the lockfile differs from the last commit, read confined, and a failure line outside a repository', async () => {
    const project = nodeProject('node-lockfile', false);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Ann', '-c', 'user.email=ann@example.com', ...args], {
        cwd: project,
        env: { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      });
    const ws = await load(project, `command_packs:\n${NODE_ENTRY}`);
    const outside = await runCommandPreview(ws, 'node.install', {});
    expect(outside).toMatchObject({ command: 'node.lockfile_diff', ok: false, truncated: false });
    expect(outside?.text).toMatch(
      /^preview failed: node.lockfile_diff exited with code 129: .*not a git repository/i,
    );
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'first');
    const lock = join(project, 'package-lock.json');
    writeFileSync(lock, readFileSync(lock, 'utf8').replace('"requires":true', '"requires":true,"x":1'));
    expect(await runCommandPreview(ws, 'node.install', {})).toEqual({
      command: 'node.lockfile_diff',
      ok: true,
      text: ' package-lock.json | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)',
      truncated: false,
    });
  });
});

needs('node', 'sh').describe('the package manager the lockfile names', () => {
  // Stand-ins for pnpm and yarn (neither need be installed here): each prints the argv it was
  // given and the script shell its environment pins, so that the choice and the flags are seen.
  // They sit inside the project, which install's own sandbox block still shows (its private /tmp
  // hides the rest of /tmp).
  const standIns = (dir: string, yarnVersion: string) =>
    tree(join(dir, '.stand-ins'), {
      pnpm: '#!/bin/sh\necho "pnpm $* | npm_config_script_shell=$npm_config_script_shell"\n',
      yarn: `#!/bin/sh\nif [ "$1" = --version ]; then echo ${yarnVersion}; exit 0; fi\necho "yarn $* | YARN_SCRIPT_SHELL=$YARN_SCRIPT_SHELL npm_config_script_shell=$npm_config_script_shell"\n`,
    });
  const text = `command_packs:\n${NODE_ENTRY.replace('  - standard: node\n', '  - standard: node\n    sandbox: false\n')}`;
  const calls: [string, Record<string, unknown>][] = [
    ['node.test', {}],
    ['node.run', { script: 'greet' }],
    ['node.install', {}],
    ['node.install', { scripts: true }],
  ];

  async function dispatch(lockfile: string, yarnVersion = '1.22.22'): Promise<string[]> {
    const dir = nodeProject(`node-${lockfile}-${yarnVersion}`, false, { [lockfile]: '' });
    const path = `${standIns(dir, yarnVersion)}:${PATH}`;
    const ws = await load(dir, text);
    const out: string[] = [];
    for (const [id, args] of calls) {
      const a = await answer(ws, id, args, { path });
      out.push('output' in a ? String(a.output).trim() : JSON.stringify(a));
    }
    return out;
  }

  it('pnpm-lock.yaml runs pnpm with the script shell pinned and the lockfile frozen, no pnpmfile', async () => {
    expect(await dispatch('pnpm-lock.yaml')).toMatchInlineSnapshot(`
      [
        "pnpm --config.script-shell=/bin/sh --config.manage-package-manager-versions=false test | npm_config_script_shell=/bin/sh",
        "pnpm --config.script-shell=/bin/sh --config.manage-package-manager-versions=false run greet | npm_config_script_shell=/bin/sh",
        "pnpm --config.script-shell=/bin/sh --config.manage-package-manager-versions=false install --frozen-lockfile --ignore-pnpmfile --ignore-scripts | npm_config_script_shell=/bin/sh",
        "pnpm --config.script-shell=/bin/sh --config.manage-package-manager-versions=false install --frozen-lockfile --ignore-pnpmfile | npm_config_script_shell=/bin/sh",
      ]
    `);
  });

  it('yarn.lock runs yarn 1 with the script shell pinned through the environment', async () => {
    expect(await dispatch('yarn.lock')).toMatchInlineSnapshot(`
      [
        "yarn test | YARN_SCRIPT_SHELL=/bin/sh npm_config_script_shell=/bin/sh",
        "yarn run greet | YARN_SCRIPT_SHELL=/bin/sh npm_config_script_shell=/bin/sh",
        "yarn install --frozen-lockfile --non-interactive --ignore-scripts | YARN_SCRIPT_SHELL=/bin/sh npm_config_script_shell=/bin/sh",
        "yarn install --frozen-lockfile --non-interactive | YARN_SCRIPT_SHELL=/bin/sh npm_config_script_shell=/bin/sh",
      ]
    `);
  });

  it('yarn.lock runs yarn 2 and later with --immutable, and --mode=skip-build for no scripts', async () => {
    expect((await dispatch('yarn.lock', '4.5.0')).slice(2)).toMatchInlineSnapshot(`
      [
        "yarn install --immutable --mode=skip-build | YARN_SCRIPT_SHELL=/bin/sh npm_config_script_shell=/bin/sh",
        "yarn install --immutable | YARN_SCRIPT_SHELL=/bin/sh npm_config_script_shell=/bin/sh",
      ]
    `);
  });

  it('a lockfile whose manager is not installed fails with 127 saying so, never another manager', async () => {
    const dir = nodeProject('node-no-pnpm', false, { 'pnpm-lock.yaml': '' });
    const ws = await load(dir, text);
    // A PATH with node and sh but no pnpm.
    const bin = join(scratch.path, 'only-node');
    mkdirSync(bin);
    for (const name of ['node', 'sh', 'npm']) {
      const at = findBinary(name);
      if (at) symlinkSync(at, join(bin, name));
    }
    expect(await answer(ws, 'node.test', {}, { path: bin })).toMatchInlineSnapshot(`
      {
        "exitCode": 127,
        "status": "exit_nonzero",
        "stderr": "this project's lockfile says pnpm, and pnpm is not on PATH: install it
      ",
        "stdout": "",
      }
    `);
  });

  needs({
    ...binary('pnpm'),
    notInCi: 'pnpm is not a Debian package; the stand-in covers its argv',
  }).it('on the real pnpm, test and run answer alike', async () => {
    const dir = nodeProject('node-real-pnpm', true, {
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n",
    });
    const ws = await load(dir, `command_packs:\n${NODE_ENTRY}`);
    expect(await answer(ws, 'node.test', {})).toMatchObject({
      status: 'tests_failed',
      exitCode: 1,
      stdout: expect.stringContaining('not ok multiplies\n'),
    });
    expect(await answer(ws, 'node.run', { script: 'greet' })).toMatchObject({
      exitCode: 0,
      output: expect.stringContaining('hello from a script\n'),
    });
  });
});

needs('node', 'npm', 'sh').describe('a hostile node project', () => {
  // The project names a marker-writing program as the shell for its scripts, in every file npm,
  // pnpm and yarn 1 read it from. No sandbox stands in the way: only the argv and the env do.
  const marker = join(elsewhere.path, 'script-shell-ran');
  const shell = join(elsewhere.path, 'hostile-shell');
  let dir: string;
  beforeAll(() => {
    tree(elsewhere.path, {
      'hostile-shell': `#!/bin/sh\necho ran >> ${JSON.stringify(marker)}\nexec /bin/sh "$@"\n`,
    });
    dir = nodeProject('node-hostile', false, {
      '.npmrc': `script-shell=${shell}\n`,
      '.yarnrc': `script-shell "${shell}"\n`,
    });
  });

  it('its .npmrc would change the shell: npm test without the pack writes the marker (the control)', () => {
    rmSync(marker, { force: true });
    execFileSync('npm', ['test'], { cwd: dir, env: { PATH }, stdio: 'ignore' });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker, { force: true });
  });

  it('test and run keep /bin/sh: the .npmrc and .yarnrc script-shell write no marker', async () => {
    rmSync(marker, { force: true });
    const ws = await load(
      dir,
      `command_packs:\n${NODE_ENTRY.replace('  - standard: node\n', '  - standard: node\n    sandbox: false\n')}`,
    );
    expect(await answer(ws, 'node.test', {})).toMatchObject({ exitCode: 0 });
    expect(await answer(ws, 'node.run', { script: 'greet' })).toMatchObject({ exitCode: 0 });
    for (const pm of ['pnpm', 'yarn'] as const) {
      if (findBinary(pm) === undefined) continue;
      writeFileSync(join(dir, pm === 'pnpm' ? 'pnpm-lock.yaml' : 'yarn.lock'), '');
      await answer(ws, 'node.test', {});
      await answer(ws, 'node.run', { script: 'greet' });
      rmSync(join(dir, pm === 'pnpm' ? 'pnpm-lock.yaml' : 'yarn.lock'));
    }
    expect(existsSync(marker)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------
// python

const PY_ENTRY = `  - standard: python
    input_overrides: { run_module: { module: { enum: [tool, no_such_module] } } }
`;

const withPytest = needs(
  'python3',
  working('pytest for python3', ['python3', '-c', 'import pytest'], 'apt-get install python3-pytest'),
);

withPytest.describe('standard pack python, on the real python3 and pytest', () => {
  let dir: string;
  beforeAll(() => {
    dir = project('python', {
      'tests/test_ok.py':
        'def test_adds():\n    assert 1 + 1 == 2\n\n\ndef test_slow_thing():\n    assert True\n',
      'tests/test_bad.py': 'def test_bad():\n    assert 1 == 2\n',
      'tool/__init__.py': '',
      'tool/__main__.py': 'import sys\n\nprint(sys.argv[1:])\n',
    });
  });
  const text = `command_packs:\n${PY_ENTRY}`;

  it('pytest runs every test; a failing test is tests_failed (exit code 1), with the failure', async () => {
    const ws = await load(dir, text);
    expect(await answer(ws, 'python.pytest', {})).toMatchInlineSnapshot(`
      {
        "exitCode": 1,
        "status": "tests_failed",
        "stderr": "",
        "stdout": "F..                                                                      [100%]
      =================================== FAILURES ===================================
      ___________________________________ test_bad ___________________________________
      tests/test_bad.py:2: in test_bad
          assert 1 == 2
      E   assert 1 == 2
      =========================== short test summary info ============================
      FAILED tests/test_bad.py::test_bad - assert 1 == 2
      1 failed, 2 passed in <time>
      ",
      }
    `);
  });

  it('pytest takes a path (a file or one test), a -k expression, -x and --maxfail', async () => {
    const ws = await load(dir, text);
    expect(await answer(ws, 'python.pytest', { path: 'tests/test_ok.py' })).toMatchInlineSnapshot(`
      {
        "exitCode": 0,
        "output": "..                                                                       [100%]
      2 passed in <time>
      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'python.pytest', { keyword: 'adds or bad' })).toMatchInlineSnapshot(`
      {
        "exitCode": 1,
        "status": "tests_failed",
        "stderr": "",
        "stdout": "F.                                                                       [100%]
      =================================== FAILURES ===================================
      ___________________________________ test_bad ___________________________________
      tests/test_bad.py:2: in test_bad
          assert 1 == 2
      E   assert 1 == 2
      =========================== short test summary info ============================
      FAILED tests/test_bad.py::test_bad - assert 1 == 2
      1 failed, 1 passed, 1 deselected in <time>
      ",
      }
    `);
    expect(
      await answer(ws, 'python.pytest', { path: 'tests/test_ok.py::test_adds', keyword: 'not slow' }),
    ).toMatchObject({ exitCode: 0, output: expect.stringContaining('1 passed in <time>') });
    const bad =
      'def test_b1():\n    assert 0\n\n\ndef test_b2():\n    assert 0\n\n\ndef test_b3():\n    assert 0\n';
    tree(dir, { 'more/test_many.py': bad });
    expect(await answer(ws, 'python.pytest', { path: 'more', exitfirst: true })).toMatchObject({
      status: 'tests_failed',
      exitCode: 1,
      stdout: expect.stringContaining('1 failed in <time>'),
    });
    expect(await answer(ws, 'python.pytest', { path: 'more', maxfail: 2 })).toMatchObject({
      status: 'tests_failed',
      exitCode: 1,
      stdout: expect.stringContaining('2 failed in <time>'),
    });
    rmSync(join(dir, 'more'), { recursive: true });
  });

  it('pytest collecting no test is an answer too (exit code 5)', async () => {
    const ws = await load(dir, text);
    expect(await answer(ws, 'python.pytest', { keyword: 'nothing_is_named_this' })).toMatchInlineSnapshot(`
      {
        "exitCode": 5,
        "output": "
      3 deselected in <time>
      ",
        "stderr": "",
      }
    `);
  });

  it('run_module runs a listed module with its value arguments, as python3 -m does', async () => {
    const ws = await load(dir, text);
    expect(
      await answer(ws, 'python.run_module', { module: 'tool', arg1: 'a b', arg3: 'data/in.csv' }),
    ).toMatchInlineSnapshot(`
      {
        "exitCode": 0,
        "output": "['a b', 'data/in.csv']
      ",
        "stderr": "",
      }
    `);
  });

  it('a module that is not installed is exit code 127 saying so, not the 1 that means "problems found"', async () => {
    const ws = await load(dir, text);
    const a = await answer(ws, 'python.run_module', { module: 'no_such_module' });
    expect(a).toMatchObject({ status: 'exit_nonzero', exitCode: 127 });
    expect('stderr' in a && a.stderr).toMatch(
      / has no module no_such_module: install it there, or put the project's virtualenv first on the pack's PATH\n$/,
    );
  });

  needs({
    ...working('ruff for python3', ['python3', '-c', 'import ruff'], 'pip install ruff'),
    notInCi: 'ruff is not a Debian 12 package, and PyPI is out of reach; the pack does not require it',
  }).it(
    'ruff reports each problem on one line; problems found (exit 1) are problems_found, the list kept',
    async () => {
      const ws = await load(dir, text);
      tree(dir, { 'lint/a.py': 'import os\n' });
      expect(await answer(ws, 'python.ruff', { path: 'lint' })).toMatchObject({
        status: 'problems_found',
        exitCode: 1,
        stdout: expect.stringContaining('lint/a.py:1:8: F401'),
      });
      expect(await answer(ws, 'python.ruff', { path: 'tool' })).toMatchObject({ exitCode: 0 });
      rmSync(join(dir, 'lint'), { recursive: true });
    },
  );

  // Debian's mypy (which CI installs) is for /usr/bin/python3; a pyenv shim may come first on PATH.
  // The pack runs the first python3 on the pack's PATH, so the test puts that one's directory first.
  const mypyDir = dirWithPython('mypy');
  needs(
    mypyDir === undefined
      ? working('mypy for python3', ['python3', '-c', 'import mypy'], 'apt-get install mypy')
      : { what: 'mypy', present: true, install: '' },
  ).it(
    'mypy reports each type error on one line; errors found (exit 1) are problems_found, the list kept',
    async () => {
      const ws = await load(dir, text);
      const path = mypyDir === undefined ? {} : { path: `${mypyDir}:${process.env.PATH ?? ''}` };
      tree(dir, { 'typed/a.py': 'def f() -> int:\n    return "s"\n' });
      expect(await answer(ws, 'python.mypy', { path: 'typed' }, path)).toMatchObject({
        status: 'problems_found',
        exitCode: 1,
        stdout: expect.stringContaining('typed/a.py:2: error: Incompatible return value type'),
      });
      expect(await answer(ws, 'python.mypy', { path: 'tool' }, path)).toMatchObject({
        exitCode: 0,
        output: expect.stringContaining('Success: no issues found'),
      });
      rmSync(join(dir, 'typed'), { recursive: true });
    },
  );
});

withPytest.describe('a hostile python project (conftest.py runs: it is project code)', () => {
  // conftest.py legitimately runs with pytest. What the pack promises is the sandbox: it cannot write
  // outside the project, nor reach the network (a server on the host's loopback here).
  const marker = join(elsewhere.path, 'conftest-wrote-this');
  let dir: string;
  let listener: CountingListener;
  beforeAll(async () => {
    listener = await listenCounting();
    dir = project('python-hostile', {
      'conftest.py': `import socket

def pytest_configure(config):
    try:
        open(${JSON.stringify(marker)}, "w").write("x")
        print("wrote outside")
    except OSError as e:
        print("write refused:", type(e).__name__)
    try:
        socket.create_connection(("127.0.0.1", ${listener.port}), timeout=5).close()
        print("connected")
    except OSError as e:
        print("connect refused:", type(e).__name__)
`,
      'test_x.py': 'def test_x():\n    pass\n',
    });
  });
  afterAll(() => listener.close());

  it('unconfined, its conftest.py writes outside the project and connects (the control)', async () => {
    rmSync(marker, { force: true });
    listener.connections = 0;
    const ws = await load(
      dir,
      `command_packs:\n${PY_ENTRY.replace('python\n', 'python\n    sandbox: false\n')}`,
    );
    expect(await answer(ws, 'python.pytest', {})).toMatchObject({ exitCode: 0 });
    expect([existsSync(marker), listener.connections]).toEqual([true, 1]);
    rmSync(marker, { force: true });
  });

  needs(SANDBOX).it(
    'confined, the same conftest.py writes nothing outside the project and reaches no network',
    async () => {
      rmSync(marker, { force: true });
      listener.connections = 0;
      const ws = await load(dir, `command_packs:\n${PY_ENTRY}`);
      const a = await answer(ws, 'python.pytest', {});
      expect(a).toMatchObject({ exitCode: 0 });
      expect('output' in a && a.output).toMatch(/^write refused: \w+\nconnect refused: \w+\n/);
      expect([existsSync(marker), listener.connections]).toEqual([false, 0]);
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// rust

needs('cargo').describe('standard pack rust, on the real cargo (one crate, its target dir reused)', () => {
  let dir: string;
  const text = 'command_packs:\n  - standard: rust\n';
  beforeAll(() => {
    dir = project('crate', {
      'Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
      'src/lib.rs': `/// Adds two numbers.
pub fn add(left: u64, right: u64) -> u64 {
    left + right
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_adds() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn it_reads_the_switch() {
        assert!(std::fs::metadata("fail-now").is_err(), "fail-now exists");
    }
}
`,
    });
  });

  it('check compiles every target offline and answers with nothing when all is well', {
    timeout: 180_000,
  }, async () => {
    const ws = await load(dir, text);
    expect(await answer(ws, 'rust.check', {})).toMatchInlineSnapshot(`
      {
        "exitCode": 0,
        "output": "",
        "stderr": "",
      }
    `);
    // cargo wrote the lockfile and the target directory inside the project.
    expect([existsSync(join(dir, 'Cargo.lock')), existsSync(join(dir, 'target'))]).toEqual([true, true]);
  });

  it('test runs every test, a filter narrows them, and a failing test is tests_failed (exit 101)', {
    timeout: 180_000,
  }, async () => {
    const ws = await load(dir, text);
    expect(await answer(ws, 'rust.test', {})).toMatchInlineSnapshot(`
      {
        "exitCode": 0,
        "output": "
      running 2 tests
      ..
      test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in <time>


      running 0 tests

      test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in <time>

      ",
        "stderr": "",
      }
    `);
    expect(await answer(ws, 'rust.test', { filter: 'it_adds' })).toMatchObject({
      exitCode: 0,
      output: expect.stringContaining(
        'test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out',
      ),
    });
    writeFileSync(join(dir, 'fail-now'), '');
    try {
      // libtest's wording of a failure differs between Rust releases; these lines do not.
      const a = await answer(ws, 'rust.test', {});
      expect(a).toMatchObject({ status: 'tests_failed', exitCode: 101 });
      const output = 'stdout' in a ? String(a.stdout) : '';
      expect(output).toContain('---- tests::it_reads_the_switch stdout ----\n');
      expect(output).toContain('fail-now exists');
      expect(output).toContain('\nfailures:\n    tests::it_reads_the_switch\n');
      expect(output).toContain(
        'test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out',
      );
    } finally {
      rmSync(join(dir, 'fail-now'));
    }
  });

  it('build builds into the project target dir; a compile error is build_failed (exit 101), the errors kept', {
    timeout: 180_000,
  }, async () => {
    const ws = await load(dir, text);
    expect(await answer(ws, 'rust.build', {})).toMatchObject({ exitCode: 0, output: '' });
    expect(existsSync(join(dir, 'target', 'debug', 'libdemo.rlib'))).toBe(true);
    const source = readFileSync(join(dir, 'src', 'lib.rs'), 'utf8');
    writeFileSync(join(dir, 'src', 'broken.rs'), 'pub fn broken() -> u8 { "no" }\n');
    writeFileSync(join(dir, 'src', 'lib.rs'), `pub mod broken;\n${source}`);
    try {
      const a = await answer(ws, 'rust.check', {});
      expect(a).toMatchObject({ status: 'build_failed', exitCode: 101 });
      expect('stderr' in a && a.stderr).toContain('error[E0308]: mismatched types\n --> src/broken.rs:1:25');
    } finally {
      writeFileSync(join(dir, 'src', 'lib.rs'), source);
      rmSync(join(dir, 'src', 'broken.rs'));
    }
  });

  needs(working('clippy', ['cargo', 'clippy', '--version'], 'rustup component add clippy')).it(
    'clippy answers with its warnings, the lint named',
    { timeout: 180_000 },
    async () => {
      const ws = await load(dir, text);
      const source = readFileSync(join(dir, 'src', 'lib.rs'), 'utf8');
      writeFileSync(
        join(dir, 'src', 'lib.rs'),
        `${source}\npub fn twice(x: u64) -> u64 {\n    return x * 2;\n}\n`,
      );
      try {
        const a = await answer(ws, 'rust.clippy', {});
        expect(a).toMatchObject({ exitCode: 0 });
        expect('stderr' in a && a.stderr).toContain('warning: unneeded `return` statement');
      } finally {
        writeFileSync(join(dir, 'src', 'lib.rs'), source);
      }
    },
  );

  needs(working('rustfmt', ['cargo', 'fmt', '--version'], 'rustup component add rustfmt')).it(
    'fmt_check answers nothing for formatted code, and the diff for the rest (exit 1, problems_found), changing nothing',
    async () => {
      const ws = await load(dir, text);
      expect(await answer(ws, 'rust.fmt_check', {})).toEqual({ exitCode: 0, output: '', stderr: '' });
      const source = readFileSync(join(dir, 'src', 'lib.rs'), 'utf8');
      const ugly = source.replace(
        'pub fn add(left: u64, right: u64) -> u64 {',
        'pub fn add( left:u64,right :u64 )->u64{',
      );
      writeFileSync(join(dir, 'src', 'lib.rs'), ugly);
      try {
        expect(await answer(ws, 'rust.fmt_check', {})).toMatchInlineSnapshot(`
          {
            "exitCode": 1,
            "status": "problems_found",
            "stderr": "",
            "stdout": "Diff in <scratch>/crate/src/lib.rs:1:
           /// Adds two numbers.
          -pub fn add( left:u64,right :u64 )->u64{
          +pub fn add(left: u64, right: u64) -> u64 {
               left + right
           }
           
          ",
          }
        `);
        expect(readFileSync(join(dir, 'src', 'lib.rs'), 'utf8')).toBe(ugly);
      } finally {
        writeFileSync(join(dir, 'src', 'lib.rs'), source);
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// gh

const GH_ENTRY = '  - standard: gh\n    env: { GH_REPO: octo/demo }\n';

describe('standard pack gh, without GitHub', () => {
  it('each command renders its argv; the token is in the environment only, as a marker', async () => {
    const ws = await load(scratch.path, `command_packs:\n${GH_ENTRY}`, { probe: false });
    const calls: [string, Record<string, unknown>][] = [
      ['gh.pr_list', { state: 'all', limit: 5, search: 'author:octocat' }],
      ['gh.pr_view', { number: 42 }],
      ['gh.pr_diff', { number: 42, name_only: true }],
      ['gh.pr_checks', { number: 42 }],
      ['gh.issue_list', {}],
      ['gh.issue_view', { number: 7 }],
      ['gh.pr_comment', { number: 42, body: '--editor; $(rm -rf /)' }],
      ['gh.pr_create', { head: 'fix-parser', title: 'Fix the parser', body: 'Fixes #7.' }],
    ];
    const argvs = calls.map(([id, args]) => {
      const r = renderPackCommand(ws, id, args);
      if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
      expect(r.argv.join(' ')).not.toContain('credential');
      return r.argv;
    });
    expect(argvs).toMatchInlineSnapshot(`
      [
        [
          "gh",
          "pr",
          "list",
          "--json=number,title,author,headRefName,baseRefName,state,isDraft,labels,url,updatedAt",
          "--state=all",
          "--limit=5",
          "--search=author:octocat",
        ],
        [
          "gh",
          "pr",
          "view",
          "42",
          "--json=number,title,body,author,state,isDraft,baseRefName,headRefName,mergeable,reviewDecision,labels,additions,deletions,changedFiles,comments,reviews,url,createdAt,updatedAt",
        ],
        [
          "gh",
          "pr",
          "diff",
          "42",
          "--color=never",
          "--name-only=true",
        ],
        [
          "gh",
          "pr",
          "checks",
          "42",
        ],
        [
          "gh",
          "issue",
          "list",
          "--json=number,title,author,state,labels,assignees,url,updatedAt",
          "--state=open",
          "--limit=30",
          "--search=",
        ],
        [
          "gh",
          "issue",
          "view",
          "7",
          "--json=number,title,body,author,state,labels,assignees,comments,url,createdAt,updatedAt",
        ],
        [
          "gh",
          "pr",
          "comment",
          "42",
          "--body=--editor; $(rm -rf /)",
        ],
        [
          "gh",
          "pr",
          "create",
          "--head=fix-parser",
          "--base=",
          "--title=Fix the parser",
          "--body=Fixes #7.",
          "--draft=false",
        ],
      ]
    `);
    const r = renderPackCommand(ws, 'gh.pr_list', {});
    expect(r.ok && r.env).toMatchInlineSnapshot(`
      {
        "CLICOLOR": "0",
        "GH_CONFIG_DIR": "/nonexistent/gh-config",
        "GH_NO_UPDATE_NOTIFIER": "1",
        "GH_PAGER": "cat",
        "GH_PROMPT_DISABLED": "1",
        "GH_REPO": "octo/demo",
        "GH_SPINNER_DISABLED": "1",
        "GH_TOKEN": "[credential gh_token]",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_DIR": "/nonexistent/GH_REPO-is-not-set-in-the-pack-env",
        "LC_ALL": "C.UTF-8",
        "NO_COLOR": "1",
        "TZ": "UTC",
      }
    `);
  });

  it('a preview for the person approving pr_create shows the argv, the token never', async () => {
    const ws = await load(scratch.path, `command_packs:\n${GH_ENTRY}`, { probe: false });
    const preview = previewPackCall(
      ws,
      'gh.pr_create',
      { head: 'fix', title: `leak ${TOKEN}`, draft: true },
      { credentials: credentialsFrom({ gh_token: TOKEN }) },
    );
    // The plan an approval binds names the env variables, never their values.
    expect(preview.plan?.env).toContain('GH_TOKEN');
    expect(JSON.stringify(preview.plan)).not.toContain(TOKEN);
    // The program the plan hashed is this machine's gh (its path, identity and bytes' hash).
    expect(preview.program?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const { plan: _plan, program: _program, ...shown } = preview;
    expect(shown).toMatchInlineSnapshot(`
      {
        "args": {
          "draft": true,
          "head": "fix",
          "title": "leak [redacted]",
        },
        "argv": [
          "gh",
          "pr",
          "create",
          "--head=fix",
          "--base=",
          "--title=leak [redacted]",
          "--body=",
          "--draft=true",
        ],
        "display": null,
        "issues": [],
      }
    `);
  });

  it('the token reaches the program through its environment, never argv (a stand-in gh reports both)', async () => {
    // A stand-in for gh, which cannot reach GitHub here: it prints its argv, the names of its
    // environment and whether GH_TOKEN holds the token (the runner would redact the token itself).
    const standIn = tree(join(scratch.path, 'stand-in-gh'), {
      gh: `#!/bin/sh
if [ "$1" = --version ]; then echo "gh version 2.23.0 (stand-in)"; exit 0; fi
node -e '
const env = Object.keys(process.env).sort();
const token = process.env.GH_TOKEN === ${JSON.stringify(TOKEN)} ? "GH_TOKEN holds the token" : "GH_TOKEN is wrong";
console.log(JSON.stringify({ argv: process.argv.slice(1), token, env }));
' -- "$@"
`,
    });
    const path = `${standIn}:${PATH}`;
    const ws = await load(scratch.path, `command_packs:\n${GH_ENTRY}`, { path });
    const a = await answer(ws, 'gh.pr_view', { number: 42 }, { path });
    expect(a).toMatchInlineSnapshot(`
      {
        "exitCode": 0,
        "output": {
          "argv": [
            "pr",
            "view",
            "42",
            "--json=number,title,body,author,state,isDraft,baseRefName,headRefName,mergeable,reviewDecision,labels,additions,deletions,changedFiles,comments,reviews,url,createdAt,updatedAt",
          ],
          "env": [
            "CLICOLOR",
            "GH_CONFIG_DIR",
            "GH_NO_UPDATE_NOTIFIER",
            "GH_PAGER",
            "GH_PROMPT_DISABLED",
            "GH_REPO",
            "GH_SPINNER_DISABLED",
            "GH_TOKEN",
            "GIT_CONFIG_GLOBAL",
            "GIT_CONFIG_NOSYSTEM",
            "GIT_DIR",
            "LC_ALL",
            "NO_COLOR",
            "PATH",
            "PWD",
            "TZ",
          ],
          "token": "GH_TOKEN holds the token",
        },
        "stderr": "",
      }
    `);
    const comment = await answer(ws, 'gh.pr_comment', { number: 3, body: 'hi' }, { path });
    expect(comment).toMatchObject({ exitCode: 0, output: expect.stringContaining('"--body=hi"') });
  });

  needs('gh').it('the real gh satisfies the requirement (gh --version is probed at load)', async () => {
    const ws = await load(scratch.path, `command_packs:\n${GH_ENTRY}`);
    expect(ws.packs.map((p) => p.id)).toEqual(['gh']);
    expect(ws.unavailable).toEqual([]);
  });

  needs('gh', 'git').it(
    'without GH_REPO the real gh stops at finding the repository: no git config of the project runs, no request is sent',
    async () => {
      // The repository names a marker-writing program for core.fsmonitor and a hook. gh looks for
      // the repository with git (before any request, so nothing reaches GitHub); GIT_DIR points it
      // nowhere, so that git reads none of it. Unconfined: only the env stands in the way. Every
      // flag and --json field is accepted by this gh (it would say "Unknown JSON field" first).
      const marker = join(elsewhere.path, 'gh-ran-git-config');
      const dir = project('gh-hostile', {
        'fsmonitor.sh': `#!/bin/sh\necho ran >> ${JSON.stringify(marker)}\n`,
      });
      execFileSync('git', ['init', '-q', dir]);
      execFileSync('git', ['-C', dir, 'config', 'core.fsmonitor', join(dir, 'fsmonitor.sh')]);
      execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', 'https://github.com/octo/demo.git']);
      const ws = await load(dir, 'command_packs:\n  - standard: gh\n    sandbox: false\n');
      const calls: [string, Record<string, unknown>][] = [
        ['gh.pr_list', {}],
        ['gh.pr_view', { number: 1 }],
        ['gh.pr_diff', { number: 1 }],
        ['gh.pr_checks', { number: 1 }],
        ['gh.issue_list', {}],
        ['gh.issue_view', { number: 1 }],
        ['gh.pr_comment', { number: 1, body: 'x' }],
        ['gh.pr_create', { head: 'x', title: 'x' }],
      ];
      for (const [id, args] of calls) {
        const a = await answer(ws, id, args);
        expect(a, id).toMatchObject({
          exitCode: 1,
          stderr:
            "failed to run git: fatal: not a git repository: '/nonexistent/GH_REPO-is-not-set-in-the-pack-env'\n\n",
        });
      }
      expect(existsSync(marker)).toBe(false);
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// Every string input of every command of these packs: naughty strings, leading dashes, path escapes.

const NAUGHTY = naughtyCorpus('--script-shell=/tmp/x', '{{script}}');

/** Arguments every required input accepts, so that one input at a time can be varied. */
const BASE: Readonly<Record<string, Record<string, unknown>>> = {
  'node.test': {},
  'node.run': { script: 'greet' },
  'node.install': {},
  'node.exec_bin': { bin: 'greet' },
  'node.lockfile_diff': {},
  'python.pytest': {},
  'python.ruff': {},
  'python.mypy': {},
  'python.run_module': { module: 'tool' },
  'rust.check': {},
  'rust.build': {},
  'rust.test': {},
  'rust.clippy': {},
  'rust.fmt_check': {},
  'gh.pr_list': {},
  'gh.pr_view': { number: 1 },
  'gh.pr_diff': { number: 1 },
  'gh.pr_checks': { number: 1 },
  'gh.issue_list': {},
  'gh.issue_view': { number: 1 },
  'gh.pr_comment': { number: 1, body: 'x' },
  'gh.pr_create': { head: 'x', title: 'x' },
};

describe('every string input of the node, python, rust and gh commands', () => {
  let ws: PackSet;
  let commands: PackCommand[];
  beforeAll(async () => {
    const dir = project('inputs', {});
    symlinkSync(elsewhere.path, join(dir, 'escape'));
    ws = await load(dir, `command_packs:\n${NODE_ENTRY}${PY_ENTRY}  - standard: rust\n${GH_ENTRY}`, {
      probe: false,
    });
    commands = ws.packs.flatMap((p) => p.commands);
  });

  it('covers every command of the four packs', () => {
    expect(commands.map((c) => c.manifestId).sort()).toEqual(Object.keys(BASE).sort());
  });

  it('takes the naughty-strings corpus: each value is exactly one argv element, or refused by name [CP-31, CP-32]', () => {
    const { rendered, refused } = renderEveryValue(ws, commands, BASE, NAUGHTY);
    // Both outcomes happen: the corpus is neither refused wholesale nor let through wholesale.
    expect(rendered).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(1000);
  });

  it('refuses a value starting with "-" by name, unless the pack text before it in its element makes it a value', () => {
    for (const command of commands) {
      for (const input of stringInputs(command)) {
        for (const value of ['-x', '--script-shell=/tmp/x', '-', '--', '-k', '--pyargs', '--web']) {
          const r = renderPackCommand(ws, command.manifestId, {
            ...BASE[command.manifestId],
            [input]: value,
          });
          if (!r.ok) {
            expect(r.issues.map((i) => (i.details as { input?: string }).input)).toEqual([input]);
            continue;
          }
          for (const { index, element } of expectedElements(command, input, value)) {
            expect(r.argv[index], `${command.manifestId} ${input}`).toBe(element);
            expect(
              command.argv[index]?.startsWith(`{{${input}`),
              `${command.manifestId} ${input}: ${element}`,
            ).toBe(false);
          }
        }
      }
    }
  });

  it('refuses a path that leaves the project (../, absolute, a symlink out) by name, for every path input', () => {
    let checked = 0;
    for (const command of commands) {
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
    // exec_bin's four arguments, pytest's, ruff's and mypy's path, run_module's four arguments.
    expect(checked).toBe(5 * 11);
  });
});
