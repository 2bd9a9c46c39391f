// The packages as they would be published: `pnpm pack` of every package, `npm install` of the
// tarballs in an empty directory, then the installed bins, and `npx -y @harness/cli init` and the
// `npx -y @harness/cli@<version> serve` it registers, on a machine with only Node.js and npm. Nothing
// of the repository is reachable from there, so a CLI that found its files through `../../` of the
// clone fails here.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findBinary, repoRoot, tempDir } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { version as cliVersion } from '../package.json';
import { appDir, structured } from './helpers';

const box = tempDir('harness-pack-install-');
afterAll(() => box.cleanup());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function sh(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd, env: { ...process.env, ...env }, timeout: 600_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs `cmd` in `cwd` with exactly `env`, nothing of this process's environment inherited. */
function shIn(cwd: string, cmd: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env, timeout: 120_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const must = (r: Run, what: string): Run => {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
};

/** Every publishable package directory of the repository: packages/* and apps/*. */
function packageDirs(): string[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(repoRoot, group))
      .map((name) => join(repoRoot, group, name))
      .filter((dir) => existsSync(join(dir, 'package.json')))
      .filter((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true),
  );
}

/** The files a manifest promises: its bins and every export target but the source condition. */
function promisedFiles(manifest: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (v: unknown, key = ''): void => {
    if (typeof v === 'string') {
      if (key !== '@harness/source') out.push(v);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  walk(manifest.bin);
  walk(manifest.exports);
  return out.map((f) => f.replace(/^\.\//, ''));
}

/**
 * Whether `promised` is among `files`: a plain path exactly, a subpath pattern (`standard/*`) by at
 * least one file it matches.
 */
function holds(promised: string, files: (prefix: string) => string[]): boolean {
  const star = promised.indexOf('*');
  if (star < 0) return files(promised).includes(promised);
  const [head, tail] = [promised.slice(0, star), promised.slice(star + 1)];
  return files(head).some(
    (f) => f.startsWith(head) && f.endsWith(tail) && f.length > head.length + tail.length,
  );
}

/** The files under `dir` whose relative path starts with `prefix` (its directory listed, or the file). */
function onDisk(dir: string, prefix: string): string[] {
  const full = join(dir, prefix);
  if (prefix.endsWith('/')) return existsSync(full) ? readdirSync(full).map((f) => `${prefix}${f}`) : [];
  return existsSync(full) ? [prefix] : [];
}

/** `pnpm pack` of every publishable package into `tgz`, each tarball checked; returns their paths. */
async function packAll(tgz: string): Promise<string[]> {
  // The tarballs carry dist/: build first where a package lacks a file it promises (the CLI's own
  // build is kept fresh by the global setup; the bundle it ships does not read the others' dist).
  const unbuilt = packageDirs().filter((dir) =>
    promisedFiles(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).some(
      (f) => !holds(f, (prefix) => onDisk(dir, prefix)),
    ),
  );
  if (unbuilt.length > 0) {
    must(await sh('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], repoRoot), 'the build');
  }
  mkdirSync(tgz);
  // One pnpm for every package (`pack -r` over packages/* and apps/*), then the public ones.
  must(
    await sh(
      'npx',
      [
        '-y',
        'pnpm@10',
        '-r',
        '--filter',
        './packages/*',
        '--filter',
        './apps/*',
        'pack',
        '--pack-destination',
        tgz,
      ],
      repoRoot,
    ),
    'pnpm -r pack',
  );
  const tarballs = packageDirs().map((dir) => {
    const { name, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return join(tgz, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
  });
  for (const file of tarballs) expect(existsSync(file), file).toBe(true);

  // Each tarball names real versions (no workspace: or catalog:) and holds every file it promises.
  for (const file of tarballs) {
    const manifestText = must(await sh('tar', ['-xzOf', file, 'package/package.json'], tgz), 'tar').stdout;
    expect(manifestText, file).not.toMatch(/"(workspace|catalog):/);
    const listed = new Set(
      must(await sh('tar', ['-tzf', file], tgz), 'tar')
        .stdout.split('\n')
        .map((l) => l.replace(/^package\//, '')),
    );
    for (const promised of promisedFiles(JSON.parse(manifestText))) {
      expect(
        holds(promised, () => [...listed]),
        `${file} lacks ${promised}`,
      ).toBe(true);
    }
  }
  return tarballs;
}

/** `npm install` of the tarballs in the empty directory `project`, with a working SQLite addon. */
async function installAll(project: string, tarballs: string[]): Promise<void> {
  // The tarballs and the npm cache; the registry only for what the cache lacks.
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), '{ "name": "install-check", "private": true }\n');
  // The native SQLite addon is a third-party build, not what this test checks: its install script
  // would compile SQLite for minutes on every run. It is skipped, and the addon the clone's own
  // install built for this Node is copied in when the versions match (else npm rebuilds it).
  must(
    await sh(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', ...tarballs],
      project,
    ),
    'npm install of the tarballs',
  );
  const installedSqlite = join(project, 'node_modules', 'better-sqlite3');
  const cloneSqlite = dirname(
    createRequire(join(appDir, 'package.json')).resolve('better-sqlite3/package.json'),
  );
  const version = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  const addon = join(cloneSqlite, 'build', 'Release', 'better_sqlite3.node');
  if (version(installedSqlite) === version(cloneSqlite) && existsSync(addon)) {
    mkdirSync(join(installedSqlite, 'build', 'Release'), { recursive: true });
    copyFileSync(addon, join(installedSqlite, 'build', 'Release', 'better_sqlite3.node'));
  } else {
    must(await sh('npm', ['rebuild', 'better-sqlite3'], project), 'npm rebuild better-sqlite3');
  }
}

/** Both bins run from the install, harness finds the example workspace in its own package, and the demo passes. */
async function checkBinsAndDemo(project: string): Promise<void> {
  const home = { HARNESS_HOME: join(box.path, 'home') };
  const harnessVersion = await sh('npx', ['--no-install', 'harness', '--version'], project, home);
  expect(harnessVersion.stdout).toMatch(/^harness \d+\.\d+\.\d+\n$/);
  const loomVersion = await sh('npx', ['--no-install', 'loom', '--version'], project, home);
  expect(loomVersion.stdout).toMatch(/^loom \d+\.\d+\.\d+\n$/);
  const check = await sh('npx', ['--no-install', 'harness', 'packs', 'check', '--no-probe'], project, home);
  expect(check.stdout).toContain(
    `ok: ${join(project, 'node_modules', '@harness', 'cli', 'dist', 'examples', 'demo', 'workspace.yaml')}:`,
  );
  const demo = await sh('npx', ['--no-install', 'harness', 'demo'], project, home);
  expect(demo.stdout, `${demo.stdout}\n${demo.stderr}`).toMatch(/demo passed: \d+ steps behaved as expected/);
  expect(demo.code).toBe(0);
}

/**
 * The environment of a machine with only Node.js and npm (and git, which the project's git pack
 * runs): a PATH holding just those programs and `sh` (npx runs a bin through it), a fresh HOME (so
 * an empty npm cache and no npm config of this machine), and npm offline, so anything npx would
 * fetch fails with ENOTCACHED instead of reaching a registry.
 */
function bareMachine(dir: string): Record<string, string> {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const name of ['npm', 'npx', 'git', 'sh']) {
    const found = findBinary(name);
    if (found === undefined) throw new Error(`${name} is not on PATH; the npx check needs it`);
    symlinkSync(found, join(bin, name));
  }
  symlinkSync(process.execPath, join(bin, 'node'));
  return { PATH: bin, HOME: join(dir, 'home'), NO_COLOR: '1', npm_config_offline: 'true' };
}

/** The names `list_commands` gives the real MCP client, the server started as `entry` says in `cwd`. */
async function commandsListedBy(
  entry: { command: string; args: string[] },
  cwd: string,
  env: Record<string, string>,
): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    cwd,
    env,
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (c: Buffer) => {
    log += c.toString('utf8');
  });
  const client = new Client({ name: 'pack-install-test', version: '0.0.0' });
  await client.connect(transport).catch((error: unknown) => {
    throw new Error(`the server started as the entry says did not answer; its stderr:\n${log}`, {
      cause: error,
    });
  });
  try {
    const listed = structured(await client.callTool({ name: 'list_commands', arguments: {} }));
    return (listed.entries as { name: string }[]).map((e) => e.name);
  } finally {
    await client.close();
  }
}

/**
 * `npx -y @harness/cli init` in a fresh git project, then the server started exactly as the
 * `.mcp.json` it wrote says (`npx -y @harness/cli@<version> serve`), listing the project's standard
 * commands to the real MCP client; then `harness doctor` in the project confirms the entry.
 *
 * Why this is npx's own resolution, and faithful to a user's machine: npx (npm's libnpmexec) looks
 * for the package it is given in the tree of the directory it runs in, at the version asked for
 * (`@harness/cli`: any; `@harness/cli@0.1.0`: exactly that one), and only when it is missing there
 * installs it into its cache (~/.npm/_npx) from a registry, with the same installer the `npm
 * install` above ran on these tarballs. Either way it then picks the bin from the package's manifest
 * by the same rule and runs it through a node_modules/.bin on PATH. Run in the directory the
 * tarballs are installed in, npx takes every step a user's npx takes but the download, which needs a
 * registry publishing these versions. npm is offline with an empty cache, so a step that reached
 * out would fail, and `~/.npm/_npx` left absent shows npx installed nothing. The entry names no
 * path: Claude Code starts it in the project, and so does this test, where the project's
 * node_modules (a link to those tarballs' install) stands in for npx's cache.
 */
async function checkNpxInitAndServe(installed: string, root: string): Promise<void> {
  const env = bareMachine(root);
  const home = env.HOME ?? '';
  const app = join(root, 'my-app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{ "name": "my-app", "scripts": { "build": "tsc" } }\n');
  must(await shIn(app, 'git', ['init', '-q', '-b', 'main'], env), 'git init');
  const init = await shIn(
    installed,
    'npx',
    ['-y', '@harness/cli', 'init', app, '--client', 'claude-code'],
    env,
  );
  expect(init.stdout, `${init.stdout}\n${init.stderr}`).toMatch(
    /created +\.mcp\.json: Claude Code: mcpServers\.harness/,
  );
  expect(init.code).toBe(0);

  const workspace = join(app, '.harness', 'workspace.yaml');
  const entry = JSON.parse(readFileSync(join(app, '.mcp.json'), 'utf8')).mcpServers.harness;
  // No path in it: npx's own PATH held the harness it ran, which no client's PATH holds.
  expect(entry).toEqual({ command: 'npx', args: ['-y', `@harness/cli@${cliVersion}`, 'serve'] });

  // Claude Code starts it in the project, where serve finds the project. npx there finds the
  // package in the project's tree, as it would in its cache after a first download.
  symlinkSync(join(installed, 'node_modules'), join(app, 'node_modules'));
  const names = await commandsListedBy(entry, app, env);
  // The packs whose programs this bare PATH holds: git's and node's (files and search need coreutils
  // and ripgrep, which it lacks, so they are left out as optional).
  expect(names).toEqual(expect.arrayContaining(['git.status', 'git.diff', 'git.commit', 'node.run']));
  expect(existsSync(join(home, '.npm', '_npx'))).toBe(false);

  const doctor = await shIn(app, join(installed, 'node_modules', '.bin', 'harness'), ['doctor'], env);
  expect(doctor.stdout.split('\n')).toContainEqual(
    `ok   ${'client claude-code'.padEnd(26)} ${join(app, '.mcp.json')}: its harness entry serves the project Claude Code starts it in, this one: ${workspace}`,
  );
}

describe('the packages installed from their tarballs', () => {
  it('pnpm pack of every package, npm install of the tarballs in an empty directory: harness demo passes, and npx -y @harness/cli init and serve run from them offline', async () => {
    const started = Date.now();
    const tarballs = await packAll(join(box.path, 'tgz'));
    const project = join(box.path, 'project');
    await installAll(project, tarballs);
    await checkBinsAndDemo(project);
    const npxStarted = Date.now();
    await checkNpxInitAndServe(project, join(box.path, 'machine'));
    const npxMs = Date.now() - npxStarted;
    process.stdout.write(
      `pack-install: packed, installed, ran the demo and npx init and serve in ${Date.now() - started} ms (npx init, serve and doctor: ${npxMs} ms)\n`,
    );
  }, 1_500_000);
});
