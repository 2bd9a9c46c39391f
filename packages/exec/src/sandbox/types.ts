/**
 * What a confined run may touch. Paths are absolute (a caller such as a pack loader resolves `~`
 * and relative paths first); a path that does not exist is skipped (nothing there to read or write).
 */
export interface SandboxPolicy {
  /**
   * Readable paths. `"all"` (default): the whole filesystem, read-only, minus `deny`. A list: only
   * those paths, plus the system directories a program needs to start (see {@link SYSTEM_READ_PATHS})
   * and the executable itself.
   */
  readonly read?: 'all' | readonly string[];
  /** Writable paths (default none). Everything else is read-only; `/tmp` is a private, empty tmpfs. */
  readonly write?: readonly string[];
  /** Paths never readable nor writable, whatever `read` and `write` say (a directory shows as empty). */
  readonly deny?: readonly string[];
  /**
   * `"none"` (default): no network; the run has its own network namespace whose loopback only its
   * own processes share. `"loopback"`: on Linux the same private loopback (the host's loopback
   * services are not reachable); on macOS the host's loopback. `"host"`: the host's network, unconfined.
   */
  readonly network?: SandboxNetwork;
  /** Most processes (and threads) the run may have alive at once; default: no limit. */
  readonly processes?: number;
  /**
   * Unix sockets the run may connect to (absolute paths). Default none: a confined run can open no
   * Unix socket at all (Linux: a seccomp filter refuses `socket(AF_UNIX)`; macOS: the profile denies
   * connecting to one). A filter cannot read the path a socket connects to, so on Linux a non-empty
   * list lifts the filter's Unix-socket rule for the run; the paths listed stay reachable where a
   * denied directory would hide them, and every other socket directory stays hidden.
   */
  readonly unixSockets?: readonly string[];
  /**
   * The user's home, hidden but for what the run needs (only with `read: "all"`): `dir` shows as an
   * empty, private directory (writes there vanish with the run) with the `visible` paths under it
   * mounted back read-only, and the write paths writable. A working directory or an executable under
   * `dir` that no visible or write path covers is refused (`invalid_sandbox`).
   */
  readonly home?: { readonly dir: string; readonly visible: readonly string[] };
  /**
   * Paths inside the write paths that stay read-only: the rules and the executable configuration
   * the person trusts later, unconfined (a workspace file, `.git`, a client's config). An entry
   * ending in `/` names a directory. One that exists is mounted back read-only; one that does not
   * is held by an empty, read-only placeholder for the run (so it cannot be created), removed
   * afterwards if it is still empty.
   */
  readonly protect?: readonly string[];
}

/** Network confinement of a run. */
export type SandboxNetwork = 'none' | 'loopback' | 'host';

/** The confinement mechanisms this package drives. */
export type SandboxMechanism = 'bwrap' | 'seatbelt';

/** How the `processes` bound was enforced, or why it was not. */
export type ProcessLimitKind = 'cgroup' | 'rlimit' | 'none';

/** What a run's confinement actually was: in every {@link RunResult}. */
export type Confinement =
  | { readonly confined: false }
  | {
      readonly confined: true;
      readonly mechanism: SandboxMechanism;
      readonly read: 'all' | readonly string[];
      readonly write: readonly string[];
      readonly deny: readonly string[];
      readonly network: SandboxNetwork;
      /** `null` when the policy set no limit. */
      readonly processes: { readonly max: number; readonly enforcedBy: ProcessLimitKind } | null;
      /** Descendants are bounded by a pid namespace (bwrap) rather than by the process group alone. */
      readonly pidNamespace: boolean;
      /**
       * Unix sockets: the paths allowed (empty: none), and what refuses the rest — `seccomp`
       * (bubblewrap's filter), `seatbelt` (the profile), or `none` (an architecture without a filter:
       * only the hidden socket directories stand in the way).
       */
      readonly unixSockets: { readonly allowed: readonly string[]; readonly enforcedBy: UnixSocketGuard };
      /** The home hidden but for its visible paths, when the policy hid it. */
      readonly home?: { readonly dir: string; readonly visible: readonly string[] };
      /** The paths kept read-only inside the write paths. */
      readonly protect?: readonly string[];
    };

/** What keeps a confined run from Unix sockets it was not given. */
export type UnixSocketGuard = 'seccomp' | 'seatbelt' | 'none';

/** Whether confinement can be used on this machine, and if not, what to install. */
export type SandboxDetection =
  | {
      readonly available: true;
      readonly mechanism: SandboxMechanism;
      /** Absolute path of `bwrap` or `sandbox-exec`. */
      readonly file: string;
      readonly version: string | null;
    }
  | {
      readonly available: false;
      readonly mechanism: SandboxMechanism | null;
      /** What is missing or failed, in one sentence. */
      readonly reason: string;
      /** What to install or change, in one sentence. */
      readonly hint: string;
      /** The binary found that could not start a sandbox, when one was found. */
      readonly file?: string;
      /** What that binary printed on stderr when it failed, whole. */
      readonly failure?: string;
    };

/**
 * Directories made readable when `read` is a list, so that a program and its shared libraries can
 * start. Missing ones are skipped.
 */
export const SYSTEM_READ_PATHS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  '/nix/store',
  '/System',
  '/Library',
  '/private/etc',
  '/private/var/db',
];
