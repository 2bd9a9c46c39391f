// `harness init` on projects as their authors lay them out, one per ecosystem, through the real
// built bin: a JavaScript library tested by ava, xo and tsd with no lockfile; a Python package in a
// src/ layout; a Rust crate whose benches need nightly. What init says it found, what it writes,
// why each pack it left out is left out, and that the workspace it wrote runs the project's own
// checks (pytest, cargo check) through the pack runner.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runPackCommand } from '@harness/packs';
import { needs, working } from '@harness/test-utils';
import { loadWorkspace } from '@harness/workspace';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, sandbox } from './helpers';

/** Writes `files` (path → text) under `dir`. */
function writeTree(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** Loads the workspace init wrote, as harness serve does, and runs one command of it. */
async function runWritten(workspace: string, command: string, args: Record<string, unknown> = {}) {
  const loaded = await loadWorkspace({ file: workspace }, { probe: true });
  if (!loaded.ok) throw new Error(loaded.issues.map((i) => i.message).join('\n'));
  const r = await runPackCommand(loaded.workspace, command, args);
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('\n'));
  return r.outcome;
}

const box = sandbox();
afterAll(() => box.cleanup());
const init = (project: string) => runCli(['init', project], { home: box.home });

describe('harness init on a JavaScript library tested by ava, xo and tsd, with no lockfile', () => {
  const project = join(box.root, 'js-lib');
  writeTree(project, {
    'package.json': `${JSON.stringify(
      {
        name: 'js-lib',
        scripts: { test: 'xo && ava && tsd' },
        devDependencies: { ava: '^6.0.0', xo: '^0.60.0', tsd: '^0.31.0' },
      },
      null,
      2,
    )}\n`,
    'index.js': 'export const add = (a, b) => a + b;\n',
  });

  it('counts the test script among the scripts, and says npm runs it for want of a lockfile', async () => {
    const r = await init(project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('found: package.json (1 script(s): test; npm, no lockfile)\n');
  });

  it('offers ava, xo and tsd to node.exec_bin and grants node.test, with no placeholder script for node.run', () => {
    const text = readFileSync(join(project, '.harness', 'workspace.yaml'), 'utf8');
    expect(text).toContain(
      '        bin: { enum: [xo, tsd, ava] }   # the tools it installs or its scripts run (xo, tsd, ava)\n',
    );
    expect(text).not.toMatch(/script: \{ enum/);
    expect(text).toContain(
      '      # Scripts of package.json left out: "test" (node.test runs it). package.json has no script\n' +
        '      # besides those left out: to offer node.run, list the scripts it may run as run: { script: {\n' +
        '      # enum: [...] } }.\n',
    );
    expect(text).toMatch(/^ {6}- node\.test +# write, runs confined without approval/m);
    expect(text).toMatch(/^ {6}- node\.exec_bin +# write, runs confined without approval/m);
    expect(text).toMatch(/^ {6}# - node\.run +# not granted: package\.json has no script for it to run/m);
  });

  it('says why each pack it left out is left out, git included, in its report and in the file', async () => {
    const r = await init(project);
    expect(r.stdout).toContain('left out: git: this directory is not a git repository (no .git here)\n');
    expect(r.stdout).toContain('left out: python: no pyproject.toml, pytest.ini or requirements*.txt\n');
    const text = readFileSync(join(project, '.harness', 'workspace.yaml'), 'utf8');
    expect(text).toContain('  # git is left out: this directory is not a git repository (no .git here).\n');
    expect(text).toContain('  # rust is left out: no Cargo.toml.\n');
    expect(text).toContain('  # make is left out: no GNUmakefile, makefile or Makefile.\n');
  });
});

const withPytest = needs(
  'python3',
  working('pytest for python3', ['python3', '-c', 'import pytest'], 'apt-get install python3-pytest'),
);

describe('harness init on a Python package in a src/ layout', () => {
  const project = join(box.root, 'py-src');
  const workspace = join(project, '.harness', 'workspace.yaml');
  writeTree(project, {
    'pyproject.toml':
      '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.setuptools]\npackage-dir = {"" = "src"}\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    'src/calc/__init__.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_calc.py': 'from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n',
  });

  it('puts src on the python pack PYTHONPATH, saying where it read it, and writes no placeholder module', async () => {
    const r = await init(project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('found: Python (pyproject.toml, imports from src/)\n');
    const text = readFileSync(workspace, 'utf8');
    expect(text).toContain(
      "    env:                                # added to the pack's own environment\n" +
        '      PYTHONPATH: src                   # its packages import from here, inside the project (pyproject.toml: [tool.setuptools] package-dir)\n',
    );
    expect(text).not.toMatch(/^ +module: \{ enum/m);
    expect(text).toContain(
      '    # input_overrides: no package holds a __main__.py: to offer python.run_module, list the modules\n',
    );
    expect(text).toMatch(/^ {6}- python\.pytest +# write, runs confined without approval/m);
  });

  it("honours pytest's pythonpath, and keeps only directories inside the project", async () => {
    const other = join(box.root, 'py-paths');
    writeTree(other, {
      'pyproject.toml':
        '[tool.pytest.ini_options]\npythonpath = ["lib", "../outside", "/etc", "missing", "."]\n',
      'lib/util.py': 'X = 1\n',
      'tests/test_util.py': 'import util\n\n\ndef test_x():\n    assert util.X == 1\n',
    });
    const r = await init(other);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(other, '.harness', 'workspace.yaml'), 'utf8')).toContain(
      '      PYTHONPATH: lib                   # its packages import from here, inside the project (pyproject.toml: [tool.pytest.ini_options] pythonpath)\n',
    );
  });

  withPytest.it(
    'runs the tests through the written workspace: they import the package from src/',
    {
      timeout: 60_000,
    },
    async () => {
      const outcome = await runWritten(workspace, 'python.pytest');
      const text = outcome.ok ? String(outcome.output) : `${outcome.stdout}${outcome.stderr}`;
      expect(text).not.toContain('ModuleNotFoundError');
      expect(outcome).toMatchObject({ ok: true, exitCode: 0 });
      expect(text).toMatch(/1 passed/);
    },
  );
});

describe('harness init on a Rust crate whose benches need nightly', () => {
  const project = join(box.root, 'rs-crate');
  const workspace = join(project, '.harness', 'workspace.yaml');
  writeTree(project, {
    'Cargo.toml': '[package]\nname = "adder"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    'src/lib.rs': 'pub fn add(a: u64, b: u64) -> u64 {\n    a + b\n}\n',
    'benches/speed.rs':
      '#![feature(test)]\nextern crate test;\n\n#[bench]\nfn adds(b: &mut test::Bencher) {\n    b.iter(|| adder::add(2, 2));\n}\n',
  });

  it('sets rust.check and rust.clippy to leave the benches out, and says why', async () => {
    const r = await init(project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('found: Cargo.toml (benches for nightly: benches/speed.rs)\n');
    const text = readFileSync(workspace, 'utf8');
    expect(text).toContain(
      '  # rust: Cargo.toml is here; its benches need nightly (#![feature] in benches/speed.rs), so\n',
    );
    expect(text).toContain(
      '      check:                            # rust.check defaults to this\n' +
        '        targets: { default: tests }     # not all: its benches need nightly\n' +
        '      clippy:                           # rust.clippy defaults to this\n' +
        '        targets: { default: tests }     # not all: its benches need nightly\n',
    );
  });

  needs('cargo').it(
    'checks the crate on a stable toolchain through the written workspace, where a check of every target fails',
    {
      timeout: 180_000,
    },
    async () => {
      const outcome = await runWritten(workspace, 'rust.check');
      expect(outcome).toMatchObject({ ok: true, exitCode: 0 });
    },
  );
});
