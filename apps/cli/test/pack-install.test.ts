// The packages as they would be published: `pnpm pack` of every package, `npm install` of the
// tarballs in an empty directory, then the installed bins. Nothing of the repository is reachable
// from there, so a CLI that found its files through `../../` of the clone fails here.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { repoRoot, tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { appDir } from './helpers';

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

describe('the packages installed from their tarballs', () => {
  it('pnpm pack of every package, npm install of the tarballs in an empty directory, then harness demo passes', async () => {
    const started = Date.now();
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
    const tgz = join(box.path, 'tgz');
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

    // An empty directory, the tarballs and the npm cache; the registry only for what the cache lacks.
    const project = join(box.path, 'project');
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

    // Both bins run from the install, and harness finds the example workspace in its own package.
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
    expect(demo.stdout, `${demo.stdout}\n${demo.stderr}`).toMatch(
      /demo passed: \d+ steps behaved as expected/,
    );
    expect(demo.code).toBe(0);
    process.stdout.write(`pack-install: packed, installed and ran the demo in ${Date.now() - started} ms\n`);
  }, 1_500_000);
});
