import { isDirectory } from '../resolve';
import type { SandboxNetwork } from './types';
import { SYSTEM_READ_PATHS } from './types';

/** A policy with defaults filled in and every path absolute. */
export interface NormalizedPolicy {
  readonly read: 'all' | readonly string[];
  readonly write: readonly string[];
  readonly deny: readonly string[];
  readonly network: SandboxNetwork;
  readonly processes: number | null;
  /** Unix sockets the run may connect to; empty: none (the seccomp filter refuses them all). */
  readonly unixSockets: readonly string[];
  /** The home hidden but for its visible paths (read `"all"` only), or `null`. */
  readonly home: { readonly dir: string; readonly visible: readonly string[] } | null;
  /** Paths kept read-only inside the write paths, each with whether it names a directory. */
  readonly protect: readonly ProtectedPath[];
}

/** A path kept read-only inside the write paths. */
export interface ProtectedPath {
  readonly path: string;
  /** It names a directory (written with a trailing `/`): a missing one is held by an empty directory. */
  readonly dir: boolean;
}

/** How the bwrap command line is put together beyond the policy. */
export interface BwrapLayout {
  /** The executable (absolute); made readable on its own when `read` is a list that misses it. */
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Give the run its own user namespace (needed for a per-run RLIMIT_NPROC when not root). */
  readonly unshareUser: boolean;
  /**
   * `env` to put the caller's `PWD` back through, when the caller gives one other than `cwd`
   * (bubblewrap always sets `PWD` to the working directory); `undefined` when none is needed.
   */
  readonly restorePwd: { readonly envFile: string; readonly pwd: string } | undefined;
  /** The file descriptor bubblewrap reads the seccomp program from, or `null` for none. */
  readonly seccompFd: number | null;
  /** `prlimit` to start the program through, with the process bound, when the rlimit enforces it. */
  readonly prlimit: { readonly file: string; readonly max: number } | null;
  /**
   * What each protected path is at plan time: `dir`/`file` (mounted back read-only), `missing` (held
   * by a placeholder bubblewrap creates), or `skip` (missing under a missing parent: the caller lists
   * the ancestor, and a placeholder there would create the parents).
   */
  readonly protectKinds: readonly ('dir' | 'file' | 'missing' | 'skip')[];
}

// Most denied paths do not exist on a given machine (some forty credential files are denied on every
// run): `isDirectory` answers those without an exception, whose construction costs several times the stat.
function kind(path: string): 'dir' | 'file' | undefined {
  const dir = isDirectory(path);
  return dir === undefined ? undefined : dir ? 'dir' : 'file';
}

/** Whether `path` is one of `roots` or below one. */
export function within(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`));
}

/**
 * The arguments to `bwrap` for one run. bubblewrap applies them in order, so the order is the
 * policy: the readable tree first, then a private `/tmp`, `/dev` and `/proc`, the read and write
 * paths on top, and the deny paths last so that nothing listed before can uncover them.
 */
export function bwrapArgs(policy: NormalizedPolicy, layout: BwrapLayout): string[] {
  // --as-pid-1: the program is the namespace's init, with no bubblewrap init between. When it
  // exits the kernel kills and waits for everything else in the namespace before bubblewrap sees
  // the exit, so the run's end is the end of all it started; and one process fewer is started.
  const out: string[] = ['--die-with-parent', '--unshare-pid', '--as-pid-1', '--unshare-ipc'];
  if (policy.network !== 'host') out.push('--unshare-net');
  if (layout.unshareUser) out.push('--unshare-user');
  if (policy.read === 'all') {
    out.push('--ro-bind', '/', '/');
  } else {
    for (const path of SYSTEM_READ_PATHS) out.push('--ro-bind-try', path, path);
  }
  out.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  if (policy.read === 'all') {
    // The private /tmp hides the host's; a working directory under it is mounted back (read-only).
    if (within(layout.cwd, ['/tmp'])) out.push('--ro-bind-try', layout.cwd, layout.cwd);
    if (policy.home !== null) {
      // Home by allow-list: an empty, private home, and what the run needs of it mounted back.
      const { dir, visible } = policy.home;
      out.push('--tmpfs', dir);
      for (const path of visible) out.push('--ro-bind-try', path, path);
      if (within(layout.file, [dir]) && !within(layout.file, [...visible, ...policy.write])) {
        out.push('--ro-bind', layout.file, layout.file);
      }
    }
  } else {
    for (const path of policy.read) out.push('--ro-bind-try', path, path);
    if (!within(layout.file, [...SYSTEM_READ_PATHS, ...policy.read])) {
      out.push('--ro-bind', layout.file, layout.file);
    }
  }
  for (const path of policy.write) out.push('--bind-try', path, path);
  const emptied: string[] = [];
  policy.protect.forEach(({ path }, i) => {
    const found = layout.protectKinds[i];
    if (found === 'dir' || found === 'file') out.push('--ro-bind', path, path);
    else if (found === 'missing' && policy.protect[i]?.dir) {
      out.push('--tmpfs', path);
      emptied.push(path);
    } else if (found === 'missing') out.push('--ro-bind', '/dev/null', path);
  });
  for (const path of policy.deny) {
    const found = kind(path);
    if (found === 'dir') {
      out.push('--tmpfs', path);
      emptied.push(path);
    } else if (found === 'file') out.push('--ro-bind', '/dev/null', path);
  }
  // A socket the policy allows stays reachable where a denied directory above it was emptied
  // (mounted before the emptied directories turn read-only, which would refuse its mount point).
  for (const path of policy.unixSockets) {
    if (within(path, policy.deny)) out.push('--bind-try', path, path);
  }
  for (const path of emptied) out.push('--remount-ro', path);
  if (layout.seccompFd !== null) out.push('--seccomp', String(layout.seccompFd));
  out.push('--chdir', layout.cwd, '--');
  // bubblewrap sets PWD to the working directory; a different PWD the caller gave is put back.
  if (layout.restorePwd !== undefined) out.push(layout.restorePwd.envFile, `PWD=${layout.restorePwd.pwd}`);
  if (layout.prlimit !== null) {
    const n = String(layout.prlimit.max);
    out.push(layout.prlimit.file, `--nproc=${n}:${n}`, '--');
  }
  out.push(layout.file, ...layout.args);
  return out;
}
