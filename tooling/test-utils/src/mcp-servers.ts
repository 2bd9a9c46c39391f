// Installs the pinned real MCP servers the tests start, once, into a cache folder outside the
// repository (as @harness/agent-clis does for the agent CLIs): never a dependency of any package,
// so nothing of them enters the lockfile. An MCP server answers no `--version`, so an install is
// whole when its entry file exists and the marker, written last before the rename, names the version.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** A pinned MCP server package and the file (relative to the package) that node starts. */
export interface PinnedServer {
  readonly name: string;
  readonly version: string;
  readonly entry: string;
}

export const EVERYTHING: PinnedServer = {
  name: '@modelcontextprotocol/server-everything',
  version: '2026.8.31',
  entry: 'dist/index.js',
};

export const FILESYSTEM: PinnedServer = {
  name: '@modelcontextprotocol/server-filesystem',
  version: '2026.8.31',
  entry: 'dist/index.js',
};

export const MEMORY: PinnedServer = {
  name: '@modelcontextprotocol/server-memory',
  version: '2026.8.31',
  entry: 'dist/index.js',
};

export const POSTGRES_SERVER: PinnedServer = {
  name: '@modelcontextprotocol/server-postgres',
  version: '0.6.2',
  entry: 'dist/index.js',
};

export const PLAYWRIGHT_MCP: PinnedServer = {
  name: '@playwright/mcp',
  version: '0.0.83',
  entry: 'cli.js',
};

/**
 * The MCP conformance suite (not a server: the client that runs its server scenarios against one),
 * installed the same way. Its dist imports `globSync` from node:fs (Node 22+), used only by its
 * tier-check command: on Node 20 it is started with a loader that supplies a stub
 * (apps/cli/test/fixtures/conformance).
 */
export const CONFORMANCE: PinnedServer = {
  name: '@modelcontextprotocol/conformance',
  version: '0.1.16',
  entry: 'dist/index.js',
};

/** The entry file's absolute path, or why there is none. */
export type InstalledServer = { ok: true; entry: string } | { ok: false; reason: string };

const MARKER = '.harness-installed.json';

/** `$XDG_CACHE_HOME/harness-mcp-servers`, else `~/.cache/harness-mcp-servers`. */
export function serversCache(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME?.trim() ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'harness-mcp-servers');
}

function entryOf(dir: string, pkg: PinnedServer): string {
  return join(dir, 'node_modules', pkg.name, pkg.entry);
}

function isWhole(dir: string, pkg: PinnedServer): boolean {
  try {
    const marker = JSON.parse(readFileSync(join(dir, MARKER), 'utf8')) as Partial<PinnedServer>;
    return marker.version === pkg.version && marker.name === pkg.name && existsSync(entryOf(dir, pkg));
  } catch {
    return false;
  }
}

function npmInstall(staging: string, spec: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const args = [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '--prefix',
      staging,
      spec,
    ];
    execFile(
      'npm',
      args,
      { cwd: staging, maxBuffer: 16 << 20, timeout: 600_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}${stderr}`.trim() || (error?.message ?? '') });
      },
    );
  });
}

/**
 * Installs `pkg` with `npm install --no-save --prefix` into `<cache>/<name>@<version>` unless a
 * whole install is there; answers the entry file, or the reason (npm missing, no network), never throwing.
 */
export async function installServer(pkg: PinnedServer, root = serversCache()): Promise<InstalledServer> {
  const dir = join(root, `${pkg.name}@${pkg.version}`);
  if (isWhole(dir, pkg)) return { ok: true, entry: entryOf(dir, pkg) };
  const staging = `${dir}.partial-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    const spec = `${pkg.name}@${pkg.version}`;
    const npm = await npmInstall(staging, spec);
    if (npm.code !== 0 || !existsSync(entryOf(staging, pkg))) {
      const tail = npm.output.split('\n').slice(-4).join(' | ');
      return { ok: false, reason: `npm install ${spec} into ${dir} failed (exit ${npm.code}): ${tail}` };
    }
    writeFileSync(
      join(staging, MARKER),
      `${JSON.stringify({ ...pkg, installedAt: new Date().toISOString() })}\n`,
    );
    mkdirSync(dirname(dir), { recursive: true });
    if (existsSync(dir) && !isWhole(dir, pkg)) rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!isWhole(dir, pkg)) throw error;
    }
    return { ok: true, entry: entryOf(dir, pkg) };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
