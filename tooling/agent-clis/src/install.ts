// Installs a pinned version of an agent CLI's npm package into a cache folder outside the repository,
// once: never a dependency of any package, so nothing of it enters the lockfile or a product's tree.
// Each install runs in a folder of its own and is renamed into place only after its marker file is
// written, last: a half install (a killed npm, a full disk) is never taken for a whole one, and two
// processes installing at once each finish, the first rename winning.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** An npm package pinned to one version, and the binary it installs. */
export interface PinnedPackage {
  /** The npm package name, e.g. `@anthropic-ai/claude-code`. */
  name: string;
  /** An exact version (never a range: the test records what this version hands its model). */
  version: string;
  /** The binary's name under `node_modules/.bin`. */
  bin: string;
}

/** An install's result: the binary's absolute path, or why there is none. */
export type Installed = { ok: true; bin: string; dir: string } | { ok: false; reason: string };

/** The file written last in an install folder: its presence is what makes the folder whole. */
export const MARKER = '.harness-installed.json';

/** `$XDG_CACHE_HOME/harness-agent-clis`, else `~/.cache/harness-agent-clis`. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME?.trim() ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'harness-agent-clis');
}

/** The folder a package version is installed in: `<cache root>/<name>@<version>`. */
export function installDir(pkg: PinnedPackage, root = cacheRoot()): string {
  return join(root, `${pkg.name}@${pkg.version}`);
}

function binPath(dir: string, pkg: PinnedPackage): string {
  return join(dir, 'node_modules', '.bin', pkg.bin);
}

function isWhole(dir: string, pkg: PinnedPackage): boolean {
  const marker = join(dir, MARKER);
  if (!existsSync(marker) || !existsSync(binPath(dir, pkg))) return false;
  try {
    const recorded = JSON.parse(readFileSync(marker, 'utf8')) as Partial<PinnedPackage>;
    return recorded.name === pkg.name && recorded.version === pkg.version;
  } catch {
    return false;
  }
}

function run(
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, maxBuffer: 16 << 20, timeout: 600_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      // A program that could not start (npm not on PATH) printed nothing: its error says why.
      resolve({ code, output: `${stdout}${stderr}`.trim() || (error?.message ?? '') });
    });
  });
}

/** The last few lines of a tool's output, for a reason a person reads. */
function tail(text: string): string {
  return text.split('\n').slice(-4).join(' | ');
}

/**
 * Installs `pkg` with `npm install --no-save --prefix <dir>` unless a whole install is already in the
 * cache, and checks that its binary answers `--version` with the pinned version. Returns the
 * binary's path, or the reason it could not be installed (npm missing, no network, a platform the
 * package does not ship for), never throwing for those. `env` is npm's environment (its registry
 * and proxy settings come from there and from the person's npm config).
 */
export async function installPinned(
  pkg: PinnedPackage,
  options: { root?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Installed> {
  const env = options.env ?? process.env;
  const dir = installDir(pkg, options.root ?? cacheRoot(env));
  if (isWhole(dir, pkg)) return { ok: true, bin: binPath(dir, pkg), dir };
  const staging = `${dir}.partial-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    const spec = `${pkg.name}@${pkg.version}`;
    const npm = await run(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', staging, spec],
      staging,
      env,
    );
    if (npm.code !== 0)
      return {
        ok: false,
        reason: `npm install ${spec} into ${dir} failed (exit ${npm.code}): ${tail(npm.output)}`,
      };
    const bin = binPath(staging, pkg);
    const version = await run(bin, ['--version'], staging, env);
    if (version.code !== 0 || !version.output.includes(pkg.version))
      return {
        ok: false,
        reason: `${spec} installed, but \`${pkg.bin} --version\` answered "${tail(version.output)}" (exit ${version.code}), not ${pkg.version}`,
      };
    writeFileSync(
      join(staging, MARKER),
      `${JSON.stringify({ ...pkg, installedAt: new Date().toISOString() })}\n`,
    );
    return { ok: true, bin: binPath(dir, pkg), dir: place(staging, dir, pkg) };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Renames a whole staging install to `dir`; another process's whole install already there wins. */
function place(staging: string, dir: string, pkg: PinnedPackage): string {
  mkdirSync(dirname(dir), { recursive: true });
  if (existsSync(dir) && !isWhole(dir, pkg)) rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(staging, dir);
  } catch (error) {
    if (!isWhole(dir, pkg)) throw error;
  }
  return dir;
}
