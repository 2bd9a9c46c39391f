// The parts of `harness init` on their own (src/init): Makefile targets, the JSON and TOML merges on
// layouts the end-to-end test does not write, how the server is launched (and how doctor reads that
// back), and which bin `npx -y @harness/cli` runs.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from '@decimalturn/toml-patch';
import { tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import cliManifest from '../package.json';
import { detectNode } from '../src/init/detect-node';
import { detectRust } from '../src/init/detect-rust';
import { harnessOnPath, launchFor, launchProblem } from '../src/init/launch';

import { makeTargets } from '../src/init/makefile';
import { mergeJsonEntry } from '../src/init/merge-json';
import { mergeTomlEntry } from '../src/init/merge-toml';
import { importRoots } from '../src/init/python-roots';
import { yamlScalar } from '../src/init/workspace-writer';

const entry = { command: 'node', args: ['/abs/harness.js', 'serve'] };

describe('makeTargets', () => {
  it('reads rule names and leaves out special, pattern, variable targets and assignments', () => {
    const text = [
      '.PHONY: all build',
      'VERSION := 1.0',
      'FLAGS ::= -O2',
      'URL = http://example.org',
      'all build: deps',
      '\tcompile: not a rule',
      'test::',
      '%.o: %.c',
      '$(OUT): all',
      'define RECIPE',
      'inside: not a rule',
      'endef',
      'docs/site: build',
      'build: again',
    ].join('\n');
    expect(makeTargets(text)).toEqual({ targets: ['all', 'build', 'test', 'docs/site'], skipped: 3 });
  });
});

describe('detectNode', () => {
  const dir = tempDir('init-node-');
  afterAll(() => dir.cleanup());

  it('lists the known tools its scripts run, past variable assignments and npx, beside those it installs', () => {
    const scripts = {
      test: 'NODE_ENV=test jest --ci',
      check: 'npx vitest run; eslint . || true',
      docs: 'typedoc',
    };
    writeFileSync(
      join(dir.path, 'package.json'),
      JSON.stringify({ scripts, devDependencies: { ava: '6', typescript: '5' } }),
    );
    const node = detectNode(dir.path);
    expect(node?.bins).toEqual([
      { bin: 'tsc', from: 'typescript' },
      { bin: 'ava', from: 'ava' },
      { bin: 'jest', from: 'scripts.test' },
      { bin: 'vitest', from: 'scripts.check' },
      { bin: 'eslint', from: 'scripts.check' },
    ]);
    expect([node?.allScripts, node?.scripts]).toEqual([
      ['test', 'check', 'docs'],
      ['check', 'docs'],
    ]);
  });
});

describe('importRoots', () => {
  const dir = tempDir('init-python-');
  afterAll(() => dir.cleanup());
  for (const sub of ['src', 'lib', 'pkg']) mkdirSync(join(dir.path, sub, 'app'), { recursive: true });
  writeFileSync(join(dir.path, 'src', 'app', '__init__.py'), '');

  it("reads setup.cfg's package_dir and packages.find, and poetry's from, each once", () => {
    const setupCfg =
      '[metadata]\nname = app\n\n[options]\npackage_dir =\n    =lib\n\n[options.packages.find]\nwhere = pkg\n';
    const pyproject = '[tool.poetry]\npackages = [{ include = "app", from = "lib" }]\n';
    expect(importRoots(dir.path, pyproject, setupCfg)).toEqual([
      { dir: 'lib', from: 'pyproject.toml: [tool.poetry] packages from' },
      { dir: 'pkg', from: 'setup.cfg: [options.packages.find] where' },
    ]);
    expect(importRoots(dir.path, '', 'package_dir = =lib\n')).toEqual([
      { dir: 'lib', from: 'setup.cfg: [options] package_dir' },
    ]);
  });

  it('takes src/ holding a package when nothing names a root, and nothing from a file that does not parse', () => {
    expect(importRoots(dir.path, '', '')).toEqual([
      { dir: 'src', from: 'src/ holds a package (a src layout)' },
    ]);
    expect(importRoots(dir.path, '[tool.pytest\n', '')).toEqual([
      { dir: 'src', from: 'src/ holds a package (a src layout)' },
    ]);
  });

  it('keeps no root that leads outside the project, through .., an absolute path or a symlink', () => {
    symlinkSync('/tmp', join(dir.path, 'out'));
    const pyproject = '[tool.pytest.ini_options]\npythonpath = ["out", "../x", "/usr", "lib/../..", "a b"]\n';
    expect(importRoots(dir.path, pyproject, '')).toEqual([]);
  });
});

describe('detectRust', () => {
  const dir = tempDir('init-rust-');
  afterAll(() => dir.cleanup());

  it('finds the bench sources that enable a feature, in benches/ and at a [[bench]] path inside the project', () => {
    const files: Record<string, string> = {
      'Cargo.toml':
        '[package]\nname = "c"\n\n[[bench]]\nname = "far"\npath = "perf/far.rs"\n\n[[bench]]\nname = "out"\npath = "../out.rs"\n',
      'benches/plain.rs': 'fn main() {}\n',
      'benches/nightly/main.rs': '// a bench\n#![feature(test)]\n',
      'perf/far.rs': '  #![feature(portable_simd)]\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir.path, path)), { recursive: true });
      writeFileSync(join(dir.path, path), text);
    }
    expect(detectRust(dir.path, ['Cargo.toml'])).toEqual({
      nightlyBenches: ['benches/nightly/main.rs', 'perf/far.rs'],
    });
    expect(detectRust(dir.path, [])).toBeUndefined();
  });

  it("reads the benches of a cargo workspace's members, a trailing /* expanded", () => {
    const ws = join(dir.path, 'ws');
    const files: Record<string, string> = {
      'Cargo.toml': '[workspace]\nmembers = ["crates/*", "cli", "../elsewhere"]\n',
      'crates/core/Cargo.toml': '[package]\nname = "core"\n',
      'crates/core/benches/hot.rs': '#![feature(test)]\n',
      'cli/Cargo.toml': '[package]\nname = "cli"\n\n[[bench]]\nname = "b"\npath = "perf/b.rs"\n',
      'cli/perf/b.rs': '#![feature(test)]\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(ws, path)), { recursive: true });
      writeFileSync(join(ws, path), text);
    }
    expect(detectRust(ws, ['Cargo.toml'])?.nightlyBenches).toEqual([
      'cli/perf/b.rs',
      'crates/core/benches/hot.rs',
    ]);
  });
});

describe('mergeJsonEntry', () => {
  it('indents a new entry with the file tabs and keeps its CRLF line endings', () => {
    const text = '{\r\n\t"mcpServers": {\r\n\t\t"other": {"command": "x"}\r\n\t}\r\n}\r\n';
    const merged = mergeJsonEntry(text, 'mcpServers', 'harness', entry);
    expect(merged).toMatchObject({ ok: true });
    expect(merged.ok && merged.text).toBe(
      '{\r\n\t"mcpServers": {\r\n\t\t"other": {"command": "x"},\r\n\t\t"harness": {\r\n\t\t\t"command": "node",\r\n\t\t\t"args": [\r\n\t\t\t\t"/abs/harness.js",\r\n\t\t\t\t"serve"\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}\r\n',
    );
  });

  it('adds the servers key to a settings file that has none, after its last setting', () => {
    const merged = mergeJsonEntry('{\n    "theme": "dark" // mine\n}\n', 'mcpServers', 'harness', entry);
    expect(merged.ok && merged.text).toBe(
      '{\n    "theme": "dark", // mine\n    "mcpServers": {\n        "harness": {\n            "command": "node",\n            "args": [\n                "/abs/harness.js",\n                "serve"\n            ]\n        }\n    }\n}\n',
    );
  });

  it('fills an empty servers object', () => {
    const merged = mergeJsonEntry('{ "servers": {} }\n', 'servers', 'harness', { command: 'node' });
    expect(merged.ok && JSON.parse(merged.text)).toEqual({ servers: { harness: { command: 'node' } } });
  });

  it('updates our keys of an existing entry in place and removes every key it does not write [SEC-27]', () => {
    const text =
      '{\n  "mcpServers": {\n    "harness": {"command": "npx", "env": {"A": "1"}, "args": [], "cwd": ".."}\n  }\n}\n';
    const merged = mergeJsonEntry(text, 'mcpServers', 'harness', entry);
    expect(merged.ok && merged.text).toBe(
      '{\n  "mcpServers": {\n    "harness": {"command": "node", "args": ["/abs/harness.js","serve"]}\n  }\n}\n',
    );
    expect(merged.ok && merged.previous).toEqual({ command: 'npx', args: [], env: { A: '1' }, cwd: '..' });
    expect(merged.ok && merged.replaced).toEqual(['env', 'cwd']);
  });

  it('refuses an object of its path that holds a key twice, naming the key and both lines [SEC-27]', () => {
    const servers =
      '{\n  "mcpServers": {"a": {"command": "a"}},\n  "mcpServers": {"b": {"command": "b"}}\n}\n';
    expect(mergeJsonEntry(servers, 'mcpServers', 'harness', entry)).toEqual({
      ok: false,
      problem:
        '"mcpServers" is written twice (lines 2 and 3): clients differ on which one they run, so harness init will not pick one (keep one of them)',
      where: '3:3',
    });
    // Escapes do not hide a second key: "harn\u0065ss" is "harness".
    const entries = '{"servers": {\n"harness": {"command": "x"},\n"harn\\u0065ss": {"command": "y"}}}';
    expect(mergeJsonEntry(entries, 'servers', 'harness', entry)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^"servers"\."harness" is written twice \(lines 2 and 3\)/),
    });
    const inside = '{"mcpServers": {"harness": {"command": "x", "env": {"A": "1", "A": "2"}}}}';
    expect(mergeJsonEntry(inside, 'mcpServers', 'harness', entry)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^"mcpServers"\."harness"\."env"\."A" is written twice/),
    });
  });

  it('takes a key written twice elsewhere in the file as it is: only the objects it edits are its concern', () => {
    const text =
      '{"other": {"x": 1, "x": 2}, "mcpServers": {"other": {"command": "o", "env": {"A": "1", "A": "2"}}}}';
    expect(mergeJsonEntry(text, 'mcpServers', 'harness', entry)).toMatchObject({ ok: true });
  });

  it('refuses a servers key that is not an object, saying which', () => {
    expect(mergeJsonEntry('{"mcpServers": []}', 'mcpServers', 'harness', entry)).toEqual({
      ok: false,
      problem: '"mcpServers" is not an object',
    });
  });
});

describe('mergeTomlEntry', () => {
  it('updates an existing [mcp_servers.harness] in place, removes the keys it does not write, and keeps the comments [SEC-27]', () => {
    const text =
      '# mine\n[mcp_servers.harness]\ncommand = "npx"\nargs = []\nenv = { A = "1" }\ncwd = ".."\n\n# after\n';
    const merged = mergeTomlEntry(text, 'mcp_servers', 'harness', entry);
    expect(merged.ok).toBe(true);
    if (!merged.ok) return;
    expect(merged.text.startsWith('# mine\n[mcp_servers.harness]\n')).toBe(true);
    expect(merged.text.endsWith('# after\n')).toBe(true);
    expect(JSON.parse(JSON.stringify(parse(merged.text)))).toEqual({
      mcp_servers: { harness: { command: 'node', args: ['/abs/harness.js', 'serve'] } },
    });
    expect(merged.replaced).toEqual(['env', 'cwd']);
  });

  it('adds to servers declared as an inline table, where a new [table] cannot go', () => {
    const text = 'mcp_servers = { other = { command = "x" } }\n';
    const merged = mergeTomlEntry(text, 'mcp_servers', 'harness', entry);
    expect(merged.ok && JSON.parse(JSON.stringify(parse(merged.text)))).toEqual({
      mcp_servers: { other: { command: 'x' }, harness: entry },
    });
  });

  it('returns the text unchanged when the entry already holds these values', () => {
    const text = '[mcp_servers.harness]\ncommand = "node"\nargs = ["/abs/harness.js", "serve"]\n';
    expect(mergeTomlEntry(text, 'mcp_servers', 'harness', entry)).toEqual({
      ok: true,
      text,
      previous: expect.objectContaining({ command: 'node' }),
      replaced: [],
    });
  });
});

describe('launchFor', () => {
  const box = tempDir('harness-init-launch-');
  afterAll(() => box.cleanup());

  /** A clone of this repository under `root`: `.git`, the workspace file, the package and its built entry. */
  const clone = (root: string, name = '@harness/cli', git = true): string => {
    if (git) mkdirSync(join(root, '.git'), { recursive: true });
    mkdirSync(join(root, 'apps', 'cli', 'dist'), { recursive: true });
    writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages: []\n');
    writeFileSync(join(root, 'apps', 'cli', 'package.json'), JSON.stringify({ name }));
    const entryFile = join(root, 'apps', 'cli', 'dist', 'harness.js');
    writeFileSync(entryFile, '');
    return entryFile;
  };

  it('runs node on the built entry of a checkout of this repository', () => {
    const entryFile = clone(join(box.path, 'clone'));
    expect(launchFor(entryFile)).toEqual({ form: 'checkout', command: 'node', prefix: [entryFile] });
  });

  it('runs node on the real path of a checkout reached through a symlink (a globally linked clone)', () => {
    const entryFile = clone(join(box.path, 'linked-clone'));
    const link = join(box.path, 'global', 'lib', 'node_modules', '@harness', 'cli');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(box.path, 'linked-clone', 'apps', 'cli'), link);
    expect(launchFor(join(link, 'dist', 'harness.js')).prefix).toEqual([entryFile]);
  });

  it('runs npx on the published package, pinned to the running version, for an installed copy', () => {
    const installed = join(box.path, 'proj', 'node_modules', '@harness', 'cli', 'dist', 'harness.js');
    expect(launchFor(installed)).toEqual({
      form: 'npx',
      command: 'npx',
      prefix: ['-y', `@harness/cli@${cliManifest.version}`],
    });
    expect(launchFor(installed, '1.2.3').prefix).toEqual(['-y', '@harness/cli@1.2.3']);
  });

  it('runs npx for the copy npx itself installed in its cache (~/.npm/_npx/<hash>/node_modules)', () => {
    const cached = join(
      box.path,
      '.npm',
      '_npx',
      '0123abcd',
      'node_modules',
      '@harness',
      'cli',
      'dist',
      'harness.js',
    );
    expect(launchFor(cached, '0.1.0').prefix).toEqual(['-y', '@harness/cli@0.1.0']);
  });

  it('runs npx where the checkout-shaped tree lies inside a node_modules folder', () => {
    const entryFile = clone(join(box.path, 'deps', 'node_modules', 'vendored'));
    expect(launchFor(entryFile, '0.1.0').form).toBe('npx');
  });

  it('runs npx where the tree is another pnpm workspace, or a copy of the sources without .git', () => {
    expect(launchFor(clone(join(box.path, 'other-repo'), '@other/cli'), '0.1.0').form).toBe('npx');
    expect(launchFor(clone(join(box.path, 'unpacked'), '@harness/cli', false), '0.1.0').form).toBe('npx');
  });
});

describe('launchProblem', () => {
  const box = tempDir('harness-init-launcher-');
  afterAll(() => box.cleanup());
  const withNpx = join(box.path, 'bin');
  mkdirSync(withNpx);
  writeFileSync(join(withNpx, 'npx'), '#!/bin/sh\n', { mode: 0o755 });
  const serve = ['serve', '--workspace', '/p/.harness/workspace.yaml'];

  it('passes the npx form pinned to this version with npx on PATH', () => {
    expect(launchProblem('npx', ['-y', '@harness/cli@0.1.0', ...serve], '0.1.0', withNpx)).toBeUndefined();
  });

  it('fails the npx form when npx is not on PATH', () => {
    expect(
      launchProblem('npx', ['-y', '@harness/cli@0.1.0', ...serve], '0.1.0', box.path),
    ).toMatchInlineSnapshot(`
      {
        "detail": "runs npx, which is not on this PATH; install Node.js with npm (npx comes with it), or run 'harness init' again from where npx is",
        "status": "fail",
      }
    `);
  });

  it('warns of an unpinned package, and of a pin to another version, naming the fix', () => {
    expect(launchProblem('npx', ['-y', '@harness/cli', ...serve], '0.1.0', withNpx)).toMatchInlineSnapshot(`
      {
        "detail": "runs @harness/cli with no version, so a client's start may fetch a release other than 0.1.0, the one this project was set up with; run 'harness init' again to pin @harness/cli@0.1.0",
        "status": "warn",
      }
    `);
    expect(
      launchProblem('npx', ['-y', '@harness/cli@0.0.9', ...serve], '0.1.0', withNpx),
    ).toMatchInlineSnapshot(`
      {
        "detail": "runs @harness/cli@0.0.9, not @harness/cli@0.1.0 (this harness); run 'harness init' again to move it to 0.1.0",
        "status": "warn",
      }
    `);
  });

  it('fails the node form whose entry is missing, and passes it where the entry exists', () => {
    const gone = join(box.path, 'gone', 'harness.js');
    expect(launchProblem('node', [gone, ...serve])).toEqual({
      status: 'fail',
      detail: `runs ${gone}, which is missing; run 'harness init' again`,
    });
    const present = join(withNpx, 'npx');
    expect(launchProblem('node', [present, ...serve])).toBeUndefined();
  });

  it('passes plain harness where it is on PATH, and fails it where it is not, naming how to put it there', () => {
    expect(launchProblem('harness', ['serve'], '0.1.0', withNpx)).toMatchInlineSnapshot(`
      {
        "detail": "runs harness, which is not on this PATH; put the harness bin on PATH (npm install -g @harness/cli@0.1.0, or scripts/link-bins.sh in a checkout), or run 'harness init' again where it is not on PATH, to write this machine's path instead",
        "status": "fail",
      }
    `);
    const withHarness = join(box.path, 'harness-bin');
    mkdirSync(withHarness);
    writeFileSync(join(withHarness, 'harness'), '#!/bin/sh\n', { mode: 0o755 });
    expect(launchProblem('harness', ['serve'], '0.1.0', withHarness)).toBeUndefined();
  });

  it('says nothing of a launcher init does not write', () => {
    expect(launchProblem('uvx', ['some-server'], '0.1.0', box.path)).toBeUndefined();
    expect(launchProblem('npx', ['-y', 'other-server'], '0.1.0', box.path)).toBeUndefined();
  });
});

describe('the @harness/cli bin npx runs', () => {
  /** npm exec's rule (libnpmexec getBinFromManifest): the only bin target, else the bin named like the unscoped package. */
  const npxBin = (manifest: { name: string; bin?: string | Record<string, string> }): string | undefined => {
    const unscoped = manifest.name.replace(/^@[^/]+\//, '');
    const bin = typeof manifest.bin === 'string' ? { [unscoped]: manifest.bin } : (manifest.bin ?? {});
    if (new Set(Object.values(bin)).size === 1) return Object.keys(bin)[0];
    return bin[unscoped] === undefined ? undefined : unscoped;
  };

  it('is harness: npx -y @harness/cli <sub> runs harness <sub>', () => {
    expect(npxBin(cliManifest)).toBe('harness');
    expect(cliManifest.bin).toEqual({ harness: './bin/harness.js' });
  });
});

describe('yamlScalar', () => {
  it('quotes what YAML would read as something else, or cannot read plain', () => {
    expect(['build', 'test:unit', 'true', 'no', '1.0', 'a b', 'docs/site'].map(yamlScalar)).toEqual([
      'build',
      '"test:unit"',
      '"true"',
      '"no"',
      '"1.0"',
      '"a b"',
      'docs/site',
    ]);
  });
});

describe('harnessOnPath', () => {
  const box = tempDir('harness-init-onpath-');
  afterAll(() => box.cleanup());
  /** A directory holding a `harness` that prints `said` for --version. */
  const pathWith = (name: string, said: string): string => {
    const dir = join(box.path, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'harness'), `#!/bin/sh\necho '${said}'\n`, { mode: 0o755 });
    return dir;
  };

  it('takes the harness on PATH that says it is this release', () => {
    const dir = pathWith('same', 'harness 1.2.3');
    expect(harnessOnPath('1.2.3', dir)).toEqual({ ok: true, file: join(dir, 'harness') });
  });

  it('refuses a harness of another release, and a PATH without one, saying why', () => {
    const dir = pathWith('older', 'harness 1.0.0');
    expect(harnessOnPath('1.2.3', dir)).toEqual({
      ok: false,
      why: `the harness on PATH (${join(dir, 'harness')}) is "harness 1.0.0", not harness 1.2.3`,
    });
    expect(harnessOnPath('1.2.3', join(box.path, 'nothing'))).toEqual({
      ok: false,
      why: 'harness is not on PATH',
    });
  });

  it('passes over a node_modules/.bin on PATH, which npx and npm scripts put there for their own run', () => {
    mkdirSync(join(box.path, 'cache', 'node_modules'), { recursive: true });
    const dir = pathWith(join('cache', 'node_modules', '.bin'), 'harness 1.2.3');
    expect(harnessOnPath('1.2.3', dir)).toEqual({ ok: false, why: 'harness is not on PATH' });
  });
});
