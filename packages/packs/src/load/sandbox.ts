// The `sandbox` blocks of a file's packs: each command's policy resolved at load (pack block, then
// the command's fields over it; `~` the serving user's home, relative paths against the pack's cwd;
// the built-in deny list added), then a sandbox mode (a workspace's `sandbox_mode`) applied against
// what this machine can do.
import { existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { detectSandbox, type SandboxPolicy, SYSTEM_READ_PATHS } from '@harness/exec';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import { listForMessage } from '../lookup';
import type { Effects, Pack, SandboxStatus, UnavailablePack } from '../types';
import {
  type DeniedPath,
  deniedPath,
  protectedPaths,
  TOOLCHAIN_HOME,
  trimDeny,
  within,
} from './sandbox-walls';
import type { BuildContext, CheckContext, LoadOptions, Path, RawPack } from './types';

/**
 * Paths no confined command may read or write, whatever its pack says (relative to the serving
 * user's home): keys, database, cloud, forge and registry credentials, agent CLIs' tokens, password
 * stores and browser profiles (their cookies are sessions).
 */
export const BUILTIN_DENY: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/doctl',
  '.config/hcloud',
  '.oci',
  '.terraform.d',
  '.vault-token',
  '.config/op',
  '.op',
  '.config/gh',
  '.config/hub',
  '.config/glab-cli',
  '.config/tea',
  '.config/git/credentials',
  '.git-credentials',
  '.kube',
  '.docker',
  '.netrc',
  '.pgpass',
  '.my.cnf',
  '.npmrc',
  '.pypirc',
  '.gem/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.config/composer/auth.json',
  '.composer/auth.json',
  '.config/configstore',
  '.claude/.credentials.json',
  '.codex/auth.json',
  '.gemini/oauth_creds.json',
  '.password-store',
  '.local/share/keyrings',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
];

/** Where PostgreSQL puts its local sockets on Debian, Ubuntu, Fedora and Arch. */
const DATABASE_SOCKET_DIRS: readonly string[] = ['/run/postgresql', '/var/run/postgresql', '/run/mysqld'];

/**
 * What the harness itself keeps that no confined command may see, as this environment places it:
 * every instance under the default data directory, `HARNESS_HOME`, the user's runtime directory
 * (where a broker's socket goes when an instance path is too long for one, beside the session's
 * other sockets), the private socket directory in the temp dir, and the database sockets' directories.
 */
export function harnessHiddenPaths(
  home: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const absolute = (value: string | undefined): string | undefined =>
    value !== undefined && isAbsolute(value) ? value : undefined;
  const dataHome = absolute(env.XDG_DATA_HOME) ?? join(home, '.local', 'share');
  const stateHome = absolute(env.XDG_STATE_HOME) ?? join(home, '.local', 'state');
  const uid = process.getuid?.();
  const out = [join(dataHome, 'harness'), join(stateHome, 'harness'), ...DATABASE_SOCKET_DIRS];
  const harnessHome = absolute(env.HARNESS_HOME);
  if (harnessHome !== undefined) out.push(harnessHome);
  const runtime = absolute(env.XDG_RUNTIME_DIR);
  if (runtime !== undefined) out.push(runtime);
  if (uid !== undefined) out.push(`/run/user/${uid}`, join(tmpdir(), `harness-${uid}`));
  return out;
}

/**
 * What of the home a command with the whole filesystem readable sees: the toolchain installs and
 * the pack's `home` entries that exist (each must be under the home: anything else is an issue).
 */
function homeVisible(
  entries: readonly [string, number][],
  { home, toolchains }: LoadWalls,
  command: string,
  at: Path,
  ctx: BuildContext,
  issues: PacksIssue[],
): string[] {
  const out: string[] = [];
  for (const [path, i] of entries) {
    if (within(path, [home]) && path !== home) out.push(path);
    else {
      issues.push(
        ctx.issue(
          Code.sandbox_path,
          [...at, 'filesystem', 'home', i],
          `sandbox home path ${path} of "${command}" is not inside the home ${home}; expected ~/… (a path under it: the rest of the home stays hidden). Use filesystem.read for paths elsewhere`,
          { command, entry: path, reason: 'home_outside_home' },
        ),
      );
    }
  }
  return [...new Set([...toolchains, ...out.filter((path) => existsSync(path))])];
}

type RawBlock = NonNullable<RawPack['sandbox']>;
type RawFields = Exclude<RawBlock, false>;

function resolvePath(raw: string, home: string, cwd: string): string | undefined {
  if (raw === '~') return home;
  if (raw.startsWith('~/')) return join(home, raw.slice(2));
  if (raw.startsWith('~')) return undefined;
  return isAbsolute(raw) ? resolve(raw) : resolve(cwd, raw);
}

/** The command's block: `false` wins, else the command's fields over the pack's. */
function merged(pack: RawBlock | undefined, command: RawBlock | undefined): RawFields | false | undefined {
  if (command === false || (command === undefined && pack === false)) return false;
  if (pack === undefined || pack === false) return command;
  if (command === undefined) return pack;
  return {
    ...pack,
    ...command,
    filesystem: { ...pack.filesystem, ...command.filesystem },
  };
}

/**
 * What every command's walls share within one load, looked up on disk once: the serving user's
 * home, its toolchain installs that exist, and the built-in deny list (credentials, the harness's
 * own directories, every instance the host names) with where each entry leads.
 */
export interface LoadWalls {
  readonly home: string;
  readonly toolchains: readonly string[];
  readonly deny: readonly DeniedPath[];
}

/** The {@link LoadWalls} of a load with `options`. */
export function loadWalls(options: LoadOptions): LoadWalls {
  const home = options.home ?? homedir();
  const deny = [
    ...BUILTIN_DENY.map((p) => join(home, p)),
    ...harnessHiddenPaths(home, options.env),
    ...(options.hide ?? []),
  ];
  return {
    home,
    toolchains: TOOLCHAIN_HOME.map((p) => join(home, p)).filter((path) => existsSync(path)),
    deny: [...new Set(deny)].map(deniedPath),
  };
}

/**
 * The policy command `ci` of `rp` runs under, or `null` for unconfined: a read command is confined
 * by default (read-only filesystem, no network); a write command only when a block says so.
 */
export function resolveSandbox(
  rp: RawPack,
  ci: number,
  effects: Effects,
  cwd: string,
  pPath: Path,
  ctx: BuildContext & { readonly walls: LoadWalls },
  issues: PacksIssue[],
): SandboxPolicy | null {
  const rc = rp.commands[ci]!;
  const block = merged(rp.sandbox, rc.sandbox);
  if (block === false || (block === undefined && effects !== 'read')) return null;
  const fields: RawFields = block ?? {};
  // Issues point at the command's block when it has one, else at the pack's.
  const at: Path = rc.sandbox === undefined ? [...pPath, 'sandbox'] : [...pPath, 'commands', ci, 'sandbox'];
  const { home } = ctx.walls;
  const command = `${rp.id}.${rc.id}`;
  // Each resolved path with the index it was written at (issues point there).
  const list = (key: 'read' | 'write' | 'deny' | 'home' | 'unix_sockets'): [string, number][] | undefined => {
    const raw = key === 'unix_sockets' ? fields.unix_sockets : fields.filesystem?.[key];
    if (raw === undefined) return undefined;
    const out: [string, number][] = [];
    raw.forEach((entry, i) => {
      const path = resolvePath(entry, home, cwd);
      if (path !== undefined) out.push([path, i]);
      else {
        issues.push(
          ctx.issue(
            Code.sandbox_path,
            key === 'unix_sockets' ? [...at, key, i] : [...at, 'filesystem', key, i],
            `sandbox path "${entry}" of "${command}" names another user's home; expected an absolute path, ~/… (the serving user's home) or a path relative to the pack's cwd`,
            { command, entry, reason: 'other_home' },
          ),
        );
      }
    });
    return out;
  };
  const read = list('read')?.map(([path]) => path);
  const writeAt = list('write') ?? (effects === 'read' ? [] : [[cwd, -1] as [string, number]]);
  const write = writeAt.map(([path]) => path);
  const homeRead = homeVisible(list('home') ?? [], ctx.walls, command, at, ctx, issues);
  const homeView =
    read === undefined
      ? { dir: home, visible: [...homeRead, ...(within(cwd, [home]) ? [cwd] : [])] }
      : undefined;
  const deny = trimDeny([...(list('deny') ?? []).map(([path]) => deniedPath(path)), ...ctx.walls.deny], {
    read: read ?? 'all',
    write,
    cwd,
    home: homeView,
    system: SYSTEM_READ_PATHS,
  });
  const protect = protectedPaths(cwd, write, isAbsolute(ctx.file) ? ctx.file : undefined);
  const unixSockets = (list('unix_sockets') ?? []).map(([path]) => path);
  if (read !== undefined) {
    for (const [path, i] of writeAt) {
      if (within(path, read)) continue;
      issues.push(
        ctx.issue(
          Code.sandbox_path,
          i < 0 ? [...at, 'filesystem', 'read'] : [...at, 'filesystem', 'write', i],
          `sandbox write path ${path} of "${command}" is outside its read paths ${listForMessage(read)}; add it (or a parent) to filesystem.read`,
          { command, entry: path, reason: 'write_outside_read' },
        ),
      );
    }
  }
  if (read !== undefined && !within(cwd, [...read, ...write])) {
    issues.push(
      ctx.issue(
        Code.sandbox_path,
        [...at, 'filesystem', 'read'],
        `the working directory ${cwd} of "${command}" is outside its sandbox read paths ${listForMessage(read)}; add it (or a parent) to filesystem.read`,
        { command, entry: cwd, reason: 'cwd_outside_read' },
      ),
    );
  }
  const network = fields.network ?? 'none';
  if (typeof network === 'object') {
    issues.push(
      ctx.issue(
        Code.sandbox_unsupported,
        [...at, 'network'],
        `sandbox network { allow: [...] } of "${command}" is not supported yet (a domain allowlist needs a filtering proxy inside the sandbox); use none, loopback or host`,
        { command, setting: 'network' },
      ),
    );
  }
  return Object.freeze({
    read: read === undefined ? 'all' : Object.freeze(read),
    write: Object.freeze(write),
    deny: Object.freeze(deny),
    ...(homeView === undefined || !existsSync(home)
      ? {}
      : { home: Object.freeze({ dir: home, visible: Object.freeze(homeView.visible) }) }),
    ...(protect.length === 0 ? {} : { protect: Object.freeze(protect) }),
    network: typeof network === 'object' ? 'none' : network,
    ...(fields.processes === undefined ? {} : { processes: fields.processes }),
    ...(unixSockets.length === 0 ? {} : { unixSockets: Object.freeze(unixSockets) }),
  });
}

/**
 * Applies `sandbox_mode` to the packs that passed their probes. `off`: every command unconfined.
 * Otherwise, where no mechanism works: `preferred` runs them unconfined with one warning,
 * `required` leaves out every pack with a confined command (with a warning naming what to install).
 */
export function applySandboxMode(
  mode: SandboxStatus['mode'],
  scope: { packs: Pack[]; unavailable: UnavailablePack[] },
  indexOf: (packId: string) => number,
  ctx: CheckContext & { readonly options: BuildContext['options'] },
  warnings: PacksIssue[],
): SandboxStatus {
  const needs = (pack: Pack) => pack.commands.some((c) => c.sandbox !== null);
  if (mode === 'off') {
    scope.packs = scope.packs.map(unconfined);
    return { mode, mechanism: null };
  }
  if (!scope.packs.some(needs)) return { mode, mechanism: null };
  const found = detectSandbox({ path: ctx.options.sandboxPath ?? process.env.PATH });
  if (found.available) return { mode, mechanism: found.mechanism };
  const unavailable = { reason: found.reason, hint: found.hint };
  if (mode === 'preferred') {
    const confined = scope.packs.filter(needs).map((p) => p.id);
    warnings.push(
      ctx.issue(
        Code.sandbox_unavailable,
        ['sandbox_mode'],
        `sandbox_mode preferred: ${found.reason}, so the commands of ${confined.length === 1 ? 'pack' : 'packs'} ${listForMessage(confined)} run unconfined; to confine them: ${found.hint}`,
        { mode, packs: confined, hint: found.hint },
        true,
      ),
    );
    scope.packs = scope.packs.map(unconfined);
    return { mode, mechanism: null, unavailable };
  }
  const kept: Pack[] = [];
  for (const pack of scope.packs) {
    if (!needs(pack)) {
      kept.push(pack);
      continue;
    }
    const commands = pack.commands.map((c) => c.manifestId);
    scope.unavailable.push({
      id: pack.id,
      binary: found.mechanism ?? 'sandbox',
      reason: found.reason,
      commands,
    });
    warnings.push(
      ctx.issue(
        Code.sandbox_unavailable,
        ['command_packs', indexOf(pack.id), 'id'],
        `pack "${pack.id}" left out: sandbox_mode is required and ${found.reason}; its commands ${listForMessage(commands)} are not offered; to fix: ${found.hint}`,
        { mode, packs: [pack.id], hint: found.hint },
      ),
    );
  }
  scope.packs = kept;
  return { mode, mechanism: null, unavailable };
}

function unconfined(pack: Pack): Pack {
  if (pack.commands.every((c) => c.sandbox === null)) return pack;
  return Object.freeze({
    ...pack,
    commands: Object.freeze(pack.commands.map((c) => Object.freeze({ ...c, sandbox: null }))),
  });
}
