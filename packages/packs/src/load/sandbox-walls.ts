// The walls every confined command gets whatever its pack says, against the code it runs: the home
// by allow-list (the project, the toolchains, nothing else of the person's), the paths inside its
// write paths that the person later trusts unconfined kept read-only, and the deny list trimmed to
// what the run could otherwise see (so its cost does not grow with every instance ever created).
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Toolchain installs under the home every confined command may read (those that exist): version
 * managers' runtimes and the person's own programs, so that a `node`, `python` or `cargo` installed
 * there starts. Caches and registries are each standard pack's own (`sandbox.filesystem.home`).
 */
export const TOOLCHAIN_HOME: readonly string[] = [
  '.nvm',
  '.volta',
  '.fnm',
  '.local/share/fnm',
  '.pyenv',
  '.rustup',
  '.cargo/bin',
  '.asdf',
  '.local/share/mise',
  '.bun',
  '.deno',
  '.sdkman',
  '.local/bin',
];

/**
 * Names inside the project (the command's working directory, and each write path that holds it)
 * that stay read-only in every write sandbox: the rules, the repository's executable configuration
 * and every client config a person runs. A trailing `/` marks a directory.
 */
export const PROTECTED_NAMES: readonly string[] = [
  '.harness/',
  '.git/',
  '.mcp.json',
  '.vscode/',
  '.cursor/',
  '.codex/',
  '.gemini/',
  '.claude/',
  '.envrc',
];

/** Inside `.git`, what stays read-only even for a pack that writes `.git` itself (git's own writes). */
const GIT_ALWAYS: readonly string[] = ['.git/config', '.git/hooks/', '.git/info/'];

/** Whether `path` is one of `roots` or below one. */
export const within = (path: string, roots: readonly string[]): boolean =>
  roots.some((root) => path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`));

/** A path to hide, with where it leads when that is elsewhere (a link, or a link above it). */
export interface DeniedPath {
  readonly path: string;
  readonly real?: string;
}

/** `path` with its real path looked up (once: a load resolves the built-in list for all its commands). */
export function deniedPath(path: string): DeniedPath {
  if (!existsSync(path)) return { path };
  try {
    const real = realpathSync(path);
    return real === path ? { path } : { path, real };
  } catch {
    return { path };
  }
}

/**
 * The protected paths of one command: each name of {@link PROTECTED_NAMES} in its working directory
 * and in each write path that holds it, the served workspace file and its `.harness` directory. A
 * write path that names one of them exactly lifts it (the git pack writes `.git`), but never the
 * workspace file nor `.git`'s config, hooks and info.
 */
export function protectedPaths(
  cwd: string,
  write: readonly string[],
  workspaceFile: string | undefined,
): string[] {
  if (write.length === 0) return [];
  const roots = [...new Set([cwd, ...write.filter((w) => within(cwd, [w]))])].filter((r) => within(r, write));
  const out: string[] = [];
  const add = (path: string) => {
    const bare = path.endsWith('/') ? path.slice(0, -1) : path;
    if (!within(bare, write) || out.some((p) => p === path)) return;
    out.push(path);
  };
  // join drops nothing but keeps a trailing slash: the name's own marks a directory.
  for (const root of roots) {
    for (const name of PROTECTED_NAMES) {
      const path = join(root, name);
      if (!write.includes(path.replace(/\/$/, ''))) add(path);
    }
    // Within a protected .git these are read-only already; a mount inside a read-only one would fail.
    if (write.includes(join(root, '.git'))) for (const name of GIT_ALWAYS) add(join(root, name));
  }
  if (workspaceFile !== undefined) {
    add(workspaceFile);
    if (dirname(workspaceFile).endsWith('/.harness')) add(`${dirname(workspaceFile)}/`);
  }
  return out;
}

/** What a confined command sees, to tell which denied paths it could reach at all. */
export interface SandboxView {
  readonly read: 'all' | readonly string[];
  readonly write: readonly string[];
  readonly cwd: string;
  /** The home hidden but for its visible paths, when `read` is `"all"`. */
  readonly home: { readonly dir: string; readonly visible: readonly string[] } | undefined;
  /** The directories a program needs to start, always readable with a read list. */
  readonly system: readonly string[];
}

/** Whether `path` (as written) is where the view shows anything: in a shown place, or above one. */
function shown(path: string, view: SandboxView): boolean {
  const shownRoots = (roots: readonly string[]) =>
    within(path, roots) || roots.some((r) => within(r, [path]));
  if (view.read !== 'all') return shownRoots([...view.system, ...view.read, ...view.write]);
  // The run's /tmp is private: the host's shows only where a write path or the cwd is mounted back.
  if (within(path, ['/tmp'])) return shownRoots([view.cwd, ...view.write]);
  if (view.home !== undefined && within(path, [view.home.dir])) {
    return shownRoots([...view.home.visible, ...view.write, view.cwd]);
  }
  return true;
}

/**
 * The deny list a run needs: each entry the view could show (as written, or where it leads), and
 * not inside another entry. A path the view cannot show costs nothing to hide, so a thousand
 * instances under the home or /tmp add no mount to a run.
 */
export function trimDeny(deny: readonly DeniedPath[], view: SandboxView): string[] {
  const seen = deny
    .filter(({ path, real }) => shown(path, view) || (real !== undefined && shown(real, view)))
    .map(({ path }) => path);
  const unique = [...new Set(seen)];
  return unique.filter((path) => !unique.some((other) => other !== path && within(path, [other])));
}
