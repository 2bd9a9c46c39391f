// Network and project config never meet: node.install runs with the network on, so no setting a
// project ships (.npmrc, .yarnrc, .yarnrc.yml) may name a program it runs. Each attack is a hostile
// project whose config names a fake program that writes a marker file; the pack's command runs it
// confined (bubblewrap) and the marker stays absent, and beside it the same npm or yarn run the way
// the pack ran it before the pins (its flags, its environment without them) writes the marker.
// Everything the sandbox must see (the fake programs, the git dependency's bare repository, the
// markers) sits inside the project: install's private /tmp hides the rest of /tmp.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { findBinary, needs, sandboxMechanism, tempDir, until } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIssue, loadPacks, type PackSet, runPackCommand } from '../src/index';
import { type CountingListener, listenCounting } from './listener';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const scratch = tempDir('standard-network-config-');
afterAll(() => scratch.cleanup());

/** A working sandbox, for the tests of what a confined command cannot do. */
const SANDBOX = sandboxMechanism(detectSandbox());
const confined = needs(SANDBOX);

/** A new project directory: `files` (path → text; a text starting with "#!" is made executable). */
function project(name: string, files: Record<string, string>): string {
  const dir = join(scratch.path, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
    chmodSync(join(dir, path), text.startsWith('#!') ? 0o755 : 0o644);
  }
  return dir;
}

/** A fake program at `dir/.hostile/<name>`: appends its name and argv to `dir/.hostile/ran`, then `then`. */
function fake(dir: string, name: string, then = 'exit 0'): string {
  const at = join(dir, '.hostile', name);
  mkdirSync(join(dir, '.hostile'), { recursive: true });
  writeFileSync(
    at,
    `#!/bin/sh\necho "${name} $*" >> ${JSON.stringify(join(dir, '.hostile', 'ran'))}\n${then}\n`,
  );
  chmodSync(at, 0o755);
  return at;
}

/** What the fake programs of `dir` wrote, one line per run; "" when none ran. */
function ran(dir: string): string {
  const at = join(dir, '.hostile', 'ran');
  return existsSync(at) ? readFileSync(at, 'utf8') : '';
}

/**
 * A bare git repository at `dir/.hostile/<name>.git` holding one commit of `pkg` (package.json):
 * a git dependency reached through git+file://, so that no network is needed to show the attack.
 */
function gitDependency(
  dir: string,
  name: string,
  pkg: Record<string, unknown>,
): { url: string; sha: string } {
  const work = join(scratch.path, `${name}-work`);
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'package.json'), `${JSON.stringify({ name, version: '1.0.0', ...pkg })}\n`);
  const git = (args: string[], cwd = work) =>
    execFileSync('git', args, {
      cwd,
      env: { PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      encoding: 'utf8',
    }).trim();
  git(['init', '-q']);
  git(['add', '.']);
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one']);
  const bare = join(dir, '.hostile', `${name}.git`);
  git(['clone', '-q', '--bare', work, bare]);
  return { url: `git+file://${bare}`, sha: git(['rev-parse', 'HEAD']) };
}

/** A node project depending on one git dependency, with the package-lock.json npm would write. */
function nodeProjectWithGitDep(name: string, dep: Record<string, unknown>, extra: Record<string, string>) {
  const dir = project(name, {});
  const { url, sha } = gitDependency(dir, `${name}-dep`, dep);
  project(name, {
    'package.json': `${JSON.stringify({ name, version: '1.0.0', private: true, dependencies: { [`${name}-dep`]: url } })}\n`,
    'package-lock.json': `${JSON.stringify({
      name,
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name, version: '1.0.0', dependencies: { [`${name}-dep`]: url } },
        [`node_modules/${name}-dep`]: { version: '1.0.0', resolved: `${url}#${sha}` },
      },
    })}\n`,
    ...extra,
  });
  return dir;
}

/**
 * The environment node.install ran npm with before the pins: the pack's env as it was (the script
 * shell and the user config pinned, nothing else), and a cache of its own.
 */
function prePinEnv(dir: string): NodeJS.ProcessEnv {
  return {
    PATH,
    HOME: join(dir, '.hostile', 'home'),
    CI: 'true',
    npm_config_script_shell: '/bin/sh',
    npm_config_userconfig: '/dev/null',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_cache: join(dir, '.hostile', 'cache'),
  };
}

/** npm as node.install ran it before the pins (npm ci --script-shell=/bin/sh, and --ignore-scripts unless `scripts`). */
function npmCiPrePin(dir: string, scripts = false): void {
  const args = ['--script-shell=/bin/sh', ...(scripts ? [] : ['--ignore-scripts']), 'ci'];
  execFileSync('npm', args, { cwd: dir, env: prePinEnv(dir), stdio: 'ignore' });
}

/** The node pack's entry in a workspace: the scripts and binaries it lists, then `extra` keys. */
const entry = (extra = '') =>
  `  - standard: node\n    input_overrides:\n      run: { script: { enum: [gyp] } }\n      exec_bin: { bin: { enum: [tsc] } }\n${extra}`;

async function load(dir: string, extra = ''): Promise<PackSet> {
  const r = await loadPacks({
    text: `command_packs:\n${entry(extra)}`,
    file: join(dir, 'workspace.yaml'),
  });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.packs;
}

/** Runs a command; its exit code and output, or why it was refused. */
async function answer(ws: PackSet, id: string, args: Record<string, unknown> = {}, path = PATH) {
  const r = await runPackCommand(ws, id, args, { path });
  if (!r.ok) return { refused: r.issues.map((i) => i.details) };
  const o = r.outcome;
  return o.ok
    ? { exitCode: o.exitCode, output: String(o.output), stderr: o.stderr }
    : { status: o.status, exitCode: o.exitCode, stdout: o.stdout, stderr: o.stderr };
}

needs('node', 'npm', 'git', 'sh').describe(
  "node.install and the project's .npmrc: every key that names a program is pinned",
  () => {
    it('git=: a lockfile with a git dependency ran the program the .npmrc names before the pin [SEC-24]', () => {
      const dir = nodeProjectWithGitDep('npmrc-git-control', {}, {});
      writeFileSync(join(dir, '.npmrc'), `git=${fake(dir, 'git', 'exec git "$@"')}\n`);
      npmCiPrePin(dir);
      expect(ran(dir)).toMatch(/^git --no-replace-objects ls-remote file:\/\//);
      expect(existsSync(join(dir, 'node_modules', 'npmrc-git-control-dep', 'package.json'))).toBe(true);
    });

    confined.it(
      'git=: node.install (scripts: false, network on) installs the git dependency with git, the named program never runs [SEC-24]',
      async () => {
        const dir = nodeProjectWithGitDep('npmrc-git', {}, {});
        writeFileSync(join(dir, '.npmrc'), `git=${fake(dir, 'git', 'exec git "$@"')}\n`);
        const ws = await load(dir);
        expect(await answer(ws, 'node.install')).toMatchObject({ exitCode: 0 });
        expect(existsSync(join(dir, 'node_modules', 'npmrc-git-dep', 'package.json'))).toBe(true);
        expect(ran(dir)).toBe('');
      },
    );

    // The git npm starts for ls-remote runs in the project directory and reads its .git/config,
    // where a remote named by the dependency's URL may name the upload-pack program to run.
    const uploadPackProject = (name: string) => {
      const dir = nodeProjectWithGitDep(name, {}, {});
      const env = { PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
      execFileSync('git', ['init', '-q'], { cwd: dir, env });
      const url = `file://${join(dir, '.hostile', `${name}-dep.git`)}`;
      const program = fake(dir, 'upload-pack', 'exec git-upload-pack "$@"');
      execFileSync('git', ['config', `remote.${url}.uploadpack`, program], { cwd: dir, env });
      return dir;
    };

    it('remote.<url>.uploadpack in .git/config: npm ci --ignore-scripts ran it for a git dependency (the control) [SEC-24]', () => {
      const dir = uploadPackProject('git-upload-pack-control');
      npmCiPrePin(dir);
      expect(ran(dir)).toMatch(/^upload-pack /);
    });

    confined.it(
      'remote.<url>.uploadpack in .git/config: node.install refuses, saying why, and runs no git [SEC-24]',
      async () => {
        const dir = uploadPackProject('git-upload-pack');
        const ws = await load(dir);
        expect(await answer(ws, 'node.install')).toMatchInlineSnapshot(`
        {
          "exitCode": 126,
          "status": "exit_nonzero",
          "stderr": "this project's repository config (.git/config) names an upload-pack program or a remote helper for a remote: the git an install starts for a git dependency would run it with the network on; remove it (git config --local --list shows it), then install
        ",
          "stdout": "",
        }
      `);
        expect(ran(dir)).toBe('');
      },
    );

    // npm exports node-options as NODE_OPTIONS to every node it starts: the child npm it runs in a
    // git dependency's clone to prepare it (a dependency with a prepare script) loads the file.
    const nodeOptionsProject = (name: string) => {
      const dir = nodeProjectWithGitDep(name, { scripts: { prepare: 'echo prepared' } }, {});
      const hook = join(dir, '.hostile', 'hook.cjs');
      writeFileSync(
        hook,
        `require('fs').appendFileSync(${JSON.stringify(join(dir, '.hostile', 'ran'))}, 'node-options ' + process.argv.slice(2, 3).join(' ') + '\\n');\n`,
      );
      writeFileSync(join(dir, '.npmrc'), `node-options=--require=${hook}\n`);
      return dir;
    };

    it('node-options=: a git dependency with a prepare script loaded the project file in npm before the pin [SEC-24]', () => {
      const dir = nodeOptionsProject('npmrc-node-options-control');
      npmCiPrePin(dir);
      expect(ran(dir)).toMatch(/^node-options install\n/);
    });

    confined.it(
      'node-options=: node.install never loads it; NODE_OPTIONS is Node default behaviour [SEC-24]',
      async () => {
        const dir = nodeOptionsProject('npmrc-node-options');
        const ws = await load(dir);
        expect(await answer(ws, 'node.install')).toMatchObject({ exitCode: 0 });
        expect(existsSync(join(dir, 'node_modules', 'npmrc-node-options-dep', 'package.json'))).toBe(true);
        expect(ran(dir)).toBe('');
      },
    );

    // With scripts, the project's own install scripts run (with the network on: the argv an
    // approval shows says scripts-with-network); the shell that runs them is /bin/sh, not the
    // project's.
    const scriptShellProject = (name: string) => {
      const dir = project(name, {
        'package.json': `${JSON.stringify({ name, version: '1.0.0', private: true, scripts: { postinstall: 'echo postinstall >> .hostile/ran-by-sh' } })}\n`,
        'package-lock.json': `${JSON.stringify({ name, version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name, version: '1.0.0', hasInstallScript: true } } })}\n`,
      });
      writeFileSync(join(dir, '.npmrc'), `script-shell=${fake(dir, 'shell', 'exec /bin/sh "$@"')}\n`);
      return dir;
    };

    it('script-shell=: npm ci with scripts, without the flag and the variable, runs the shell the .npmrc names (the control) [SEC-24]', () => {
      const dir = scriptShellProject('npmrc-script-shell-control');
      const { npm_config_script_shell: _pinned, ...env } = prePinEnv(dir);
      execFileSync('npm', ['ci'], { cwd: dir, env, stdio: 'ignore' });
      expect(ran(dir)).toMatch(/^shell -c echo postinstall/);
    });

    confined.it(
      'script-shell=: node.install with scripts runs the project install script with /bin/sh [SEC-24]',
      async () => {
        const dir = scriptShellProject('npmrc-script-shell');
        const ws = await load(dir);
        expect(await answer(ws, 'node.install', { scripts: true })).toMatchObject({ exitCode: 0 });
        expect(readFileSync(join(dir, '.hostile', 'ran-by-sh'), 'utf8')).toBe('postinstall\n');
        expect(ran(dir)).toBe('');
      },
    );

    // npm run hands the configured node-gyp to the node-gyp a script runs (npm ci uses its own).
    const nodeGypProject = (name: string) => {
      const dir = project(name, {
        'package.json': `${JSON.stringify({ name, version: '1.0.0', private: true, scripts: { gyp: 'node-gyp --version' } })}\n`,
        '.hostile/.keep': '',
      });
      const gyp = join(dir, '.hostile', 'node-gyp.cjs');
      writeFileSync(
        gyp,
        `require('fs').appendFileSync(${JSON.stringify(join(dir, '.hostile', 'ran'))}, 'node-gyp\\n');\n`,
      );
      writeFileSync(join(dir, '.npmrc'), `node-gyp=${gyp}\n`);
      return dir;
    };

    it('node-gyp=: npm run gyp without the pin runs the node-gyp the .npmrc names (the control) [SEC-24]', () => {
      const dir = nodeGypProject('npmrc-node-gyp-control');
      execFileSync('npm', ['--script-shell=/bin/sh', 'run', 'gyp'], {
        cwd: dir,
        env: prePinEnv(dir),
        stdio: 'ignore',
      });
      expect(ran(dir)).toBe('node-gyp\n');
    });

    confined.it("node-gyp=: node.run's script runs npm's own node-gyp [SEC-24]", async () => {
      const dir = nodeGypProject('npmrc-node-gyp');
      const ws = await load(dir);
      expect(await answer(ws, 'node.run', { script: 'gyp' })).toMatchObject({
        exitCode: 0,
        output: expect.stringMatching(/^v\d+\.\d+\.\d+$/m),
      });
      expect(ran(dir)).toBe('');
    });
  },
);

describe('the pins every node command carries, over any config file of the project', () => {
  it('pins each npm, yarn and corepack key that names a program, and git config npm git reads [SEC-24]', async () => {
    const dir = project('pins', { 'package.json': '{}\n' });
    const ws = await load(dir);
    const env = ws.packs[0]?.env ?? {};
    expect(
      Object.fromEntries(
        Object.entries(env).filter(
          ([k]) =>
            /^(npm_config_|YARN_|COREPACK_|GIT_)/.test(k) &&
            !/LOG|FUND|AUDIT|NOTIFIER|TELEMETRY|PROGRESS|PROMPT/i.test(k),
        ),
      ),
    ).toMatchInlineSnapshot(`
      {
        "COREPACK_ENABLE_AUTO_PIN": "0",
        "COREPACK_ENABLE_UNSAFE_CUSTOM_URLS": "0",
        "COREPACK_ENV_FILE": "0",
        "GIT_ASKPASS": "echo",
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": "credential.helper",
        "GIT_CONFIG_KEY_1": "protocol.ext.allow",
        "GIT_CONFIG_VALUE_0": "",
        "GIT_CONFIG_VALUE_1": "never",
        "GIT_PROXY_COMMAND": "",
        "GIT_SSH_COMMAND": "ssh -oStrictHostKeyChecking=accept-new",
        "YARN_IGNORE_PATH": "1",
        "YARN_SCRIPT_SHELL": "/bin/sh",
        "npm_config_browser": "false",
        "npm_config_editor": "false",
        "npm_config_git": "git",
        "npm_config_node_options": "--unhandled-rejections=throw",
        "npm_config_script_shell": "/bin/sh",
        "npm_config_shell": "/bin/sh",
        "npm_config_userconfig": "/dev/null",
        "npm_config_viewer": "man",
      }
    `);
    // Each is a value npm reads (an empty one it skips, which would not pin).
    for (const [k, v] of Object.entries(env))
      if (k.startsWith('npm_config_')) expect([k, v]).not.toEqual([k, '']);
  });
});

/**
 * A PATH with yarn 1 on it: this machine's, else (under CI) yarn 1.22.22 from npm installed into a
 * folder of its own outside /tmp (the confined install has a private /tmp); `undefined` without.
 */
function yarnPath(): string | undefined {
  if (findBinary('yarn') !== undefined) return PATH;
  if (process.env.CI !== 'true') return undefined;
  const prefix = mkdtempSync('/var/tmp/standard-network-yarn-');
  afterAll(() => rmSync(prefix, { recursive: true, force: true }));
  execFileSync(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, 'yarn@1.22.22'],
    {
      stdio: 'ignore',
      env: { ...process.env, npm_config_userconfig: '/dev/null' },
    },
  );
  return `${join(prefix, 'node_modules', '.bin')}:${PATH}`;
}

needs('node', 'sh').describe('yarn: the program .yarnrc and .yarnrc.yml name, and yarn 2+ plugins', () => {
  const withYarn = findBinary('npm') === undefined ? undefined : yarnPath();
  const YARN = {
    what: 'yarn 1 on PATH',
    present: withYarn !== undefined,
    install: 'npm install --global yarn@1 (under CI=true the test installs it from npm)',
  };
  needs(YARN, SANDBOX).it(
    'yarn-path and yarnPath: yarn runs the program the project names unless YARN_IGNORE_PATH (the control), node.install runs the yarn on PATH [SEC-24]',
    async () => {
      const dir = project('yarn-path', {
        'package.json': '{"name":"yarn-path","version":"1.0.0","private":true}\n',
        'yarn.lock': '',
      });
      const program = fake(dir, 'yarn-path');
      writeFileSync(join(dir, '.yarnrc'), `yarn-path "${program}"\n`);
      writeFileSync(join(dir, '.yarnrc.yml'), `yarnPath: ${program}\n`);
      execFileSync('yarn', ['--version'], {
        cwd: dir,
        env: { PATH: withYarn as string, HOME: join(dir, '.hostile') },
        stdio: 'ignore',
      });
      expect(ran(dir)).toBe('yarn-path --version\n');
      rmSync(join(dir, '.hostile', 'ran'));
      const ws = await load(dir);
      expect(await answer(ws, 'node.install', {}, withYarn)).toMatchObject({ exitCode: 0 });
      expect(ran(dir)).toBe('');
    },
  );

  // A stand-in yarn 4 (none need be installed): the guard refuses before it would start.
  const standIn = (dir: string) =>
    project(`${dir.split('/').pop()}/.stand-ins`, {
      yarn: `#!/bin/sh\nif [ "$1" = --version ]; then echo 4.5.0; exit 0; fi\necho "yarn $*" >> ${JSON.stringify(join(dir, '.hostile', 'ran'))}\n`,
    });

  it('a yarn 2+ install is refused when .yarnrc.yml names plugins: they are project code and install has the network [SEC-24]', async () => {
    const dir = project('yarn-plugins', { 'package.json': '{}\n', 'yarn.lock': '', '.hostile/.keep': '' });
    writeFileSync(join(dir, '.yarnrc.yml'), 'plugins:\n  - path: .yarn/plugins/evil.cjs\n');
    const ws = await load(dir, '    sandbox: false\n');
    const path = `${standIn(dir)}:${PATH}`;
    for (const scripts of [false, true]) {
      expect(await answer(ws, 'node.install', { scripts }, path)).toMatchInlineSnapshot(`
        {
          "exitCode": 126,
          "status": "exit_nonzero",
          "stderr": "this project's .yarnrc.yml names plugins, code yarn would run with the network on: node.install does not run yarn with them; install the dependencies yourself (yarn install), then node.test and node.run work offline
        ",
          "stdout": "",
        }
      `);
    }
    expect(ran(dir)).toBe('');
    // Spelt with an escape, the key is refused too; without plugins, yarn runs.
    writeFileSync(join(dir, '.yarnrc.yml'), '"plu\\x67ins": [{path: x.cjs}]\n');
    expect(await answer(ws, 'node.install', {}, path)).toMatchObject({ exitCode: 126 });
    writeFileSync(join(dir, '.yarnrc.yml'), 'nodeLinker: node-modules\n');
    expect(await answer(ws, 'node.install', {}, path)).toMatchObject({ exitCode: 0 });
    expect(ran(dir)).toBe('yarn install --immutable --mode=skip-build\n');
  });
});

needs('cargo', 'node').describe(
  'rust and .cargo/config.toml: the programs it names run, offline, with no network',
  () => {
    // No rust command has the network: a program the project's .cargo/config.toml names (a
    // rustc-wrapper here; a runner, a linker, build scripts alike) runs as project code, confined.
    let listener: CountingListener;
    beforeAll(async () => {
      listener = await listenCounting();
    });
    afterAll(() => listener.close());
    const crate = (name: string) => {
      const dir = project(name, {
        'Cargo.toml': `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n`,
        'src/lib.rs': 'pub fn one() -> u32 {\n    1\n}\n',
      });
      const wrapper = fake(
        dir,
        'rustc-wrapper',
        `node -e "require('net').connect(${listener.port}, '127.0.0.1').on('connect', function () { this.end() }).on('error', () => {})"\nexec "$@"`,
      );
      project(name, { '.cargo/config.toml': `[build]\nrustc-wrapper = "${wrapper}"\n` });
      return dir;
    };
    const RUST = 'command_packs:\n  - standard: rust\n';

    it('unconfined, the rustc-wrapper .cargo/config.toml names runs and connects (the control) [SEC-24]', async () => {
      const dir = crate('wrapper_control');
      const r = await loadPacks({
        text: RUST.replace('rust\n', 'rust\n    sandbox: false\n'),
        file: join(dir, 'workspace.yaml'),
      });
      if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
      expect(await answer(r.packs, 'rust.check')).toMatchObject({ exitCode: 0 });
      expect(ran(dir)).toMatch(/^rustc-wrapper /);
      await until(() => listener.connections > 0, 'a connection from the wrapper');
    });

    confined.it(
      'confined, rust.check runs it as project code and it reaches no network [SEC-24]',
      async () => {
        const dir = crate('wrapper_confined');
        const r = await loadPacks({ text: RUST, file: join(dir, 'workspace.yaml') });
        if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
        expect(r.packs.packs[0]?.commands.map((c) => c.sandbox?.network)).toEqual([
          'none',
          'none',
          'none',
          'none',
          'none',
        ]);
        listener.connections = 0;
        expect(await answer(r.packs, 'rust.check')).toMatchObject({ exitCode: 0 });
        expect(ran(dir)).toMatch(/^rustc-wrapper /);
        expect(listener.connections).toBe(0);
      },
    );
  },
);

describe('which commands of the project packs have the network', () => {
  confined.it(
    'node.install alone, of node, rust, python and make: every other command runs with none [SEC-24]',
    async () => {
      const dir = project('which-network', { 'package.json': '{}\n' });
      const r = await loadPacks({
        text: `command_packs:\n${entry()}  - standard: rust\n  - standard: python\n    input_overrides: { run_module: { module: { enum: [m] } } }\n  - standard: make\n    input_overrides: { run: { target: { enum: [test] } } }\n`,
        file: join(dir, 'workspace.yaml'),
      });
      if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
      const withNetwork = r.packs.packs.flatMap((p) =>
        p.commands
          .filter((c) => c.sandbox?.network !== 'none')
          .map((c) => `${p.id}.${c.id}: ${c.sandbox?.network}`),
      );
      expect(withNetwork).toEqual(['node.install: host']);
    },
  );
});
