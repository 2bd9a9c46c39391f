import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ExecError, ExecErrorCode } from '../errors';
import { bwrapArgs, type NormalizedPolicy, type ProtectedPath, within } from './bwrap';
import { createPidsCgroup, type PidsCgroup } from './cgroup';
import { detectSandbox } from './detect';
import { holdProtected, type ProtectHold } from './protect';
import { seatbeltArgs, seatbeltProfile } from './seatbelt';
import { encodeFilter, seccompFilter, seccompSupported } from './seccomp';
import type { Confinement, ProcessLimitKind, SandboxDetection, SandboxPolicy } from './types';
import { SYSTEM_READ_PATHS } from './types';

/** How to start one confined run: the mechanism's program and arguments around the real argv. */
export interface SandboxLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly confinement: Confinement & { readonly confined: true };
  /** The run's pids cgroup, to remove once the run is gone. */
  readonly cgroup: PidsCgroup | undefined;
  /** The seccomp program bubblewrap reads on file descriptor 3 (a pipe the caller fills), if any. */
  readonly seccomp: Buffer | undefined;
  /** The protected paths this run holds; released once the run is gone (placeholders removed). */
  readonly protect: ProtectHold | undefined;
}

/** The descriptor bubblewrap reads its seccomp program from: the first after stdin, stdout, stderr. */
export const SECCOMP_FD = 3;

const PRLIMIT_PATHS = ['/usr/bin/prlimit', '/bin/prlimit'];
const ENV_PATHS = ['/usr/bin/env', '/bin/env'];

function invalid(message: string): ExecError {
  return new ExecError(ExecErrorCode.invalid_sandbox, message);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `path` when it is absolute and holds no NUL; else the `invalid_sandbox` error naming `field`. */
function checkedPath(path: unknown, field: string): string {
  if (typeof path !== 'string' || !isAbsolute(path) || path.includes('\0')) {
    throw invalid(
      `sandbox.${field} must be an absolute path without NUL; found ${JSON.stringify(path)}. Resolve "~" and relative paths before the run.`,
    );
  }
  return path;
}

function paths(value: unknown, field: string, resolveLinks: boolean): string[] {
  if (!Array.isArray(value)) throw invalid(`sandbox.${field} must be an array of absolute paths.`);
  const out: string[] = [];
  value.forEach((entry: unknown, i) => {
    const path = checkedPath(entry, `${field}[${i}]`);
    // A symlink is followed so the mount covers what the program will reach through it.
    const real = existsSync(path) ? realpathSync(path) : path;
    if (!out.includes(real)) out.push(real);
    // Only a path that is itself a link is kept as written too: one reached through a linked
    // parent (/var/run → /run) is the same place as its real path, which bubblewrap cannot mount twice.
    if (!resolveLinks && real !== path && isLink(path) && !out.includes(path)) out.push(path);
  });
  return out;
}

// The two programs a run can need (Unix sockets refused, or allowed by a list), made once.
const filters = new Map<boolean, Buffer>();

function encodedFilter(unixSockets: boolean): Buffer {
  let bytes = filters.get(unixSockets);
  if (bytes === undefined) {
    bytes = encodeFilter(seccompFilter({ unixSockets }) ?? []);
    filters.set(unixSockets, bytes);
  }
  return bytes;
}

/** Checks a policy and fills in its defaults (read everything, write nothing, no network). */
export function normalizePolicy(policy: SandboxPolicy): NormalizedPolicy {
  if (policy === null || typeof policy !== 'object') throw invalid('sandbox must be an object.');
  const read = policy.read === undefined || policy.read === 'all' ? 'all' : paths(policy.read, 'read', true);
  const write = paths(policy.write ?? [], 'write', true);
  // A denied path is hidden both where it is and, if it is a link, where it leads.
  const deny = paths(policy.deny ?? [], 'deny', false);
  const network = policy.network ?? 'none';
  if (network !== 'none' && network !== 'loopback' && network !== 'host') {
    throw invalid(`sandbox.network must be "none", "loopback" or "host"; found ${JSON.stringify(network)}.`);
  }
  const processes = policy.processes ?? null;
  if (processes !== null && (!Number.isSafeInteger(processes) || processes < 1)) {
    throw invalid(`sandbox.processes must be an integer >= 1; found ${String(processes)}.`);
  }
  const unixSockets = paths(policy.unixSockets ?? [], 'unixSockets', false);
  const home = policy.home === undefined || read !== 'all' ? null : homeOf(policy.home);
  const protect = protectedPaths(policy.protect ?? []);
  return { read, write, deny, network, processes, unixSockets, home, protect };
}

function homeOf(home: NonNullable<SandboxPolicy['home']>): NormalizedPolicy['home'] {
  if (home === null || typeof home !== 'object')
    throw invalid('sandbox.home must be an object { dir, visible }.');
  const [dir] = paths([home.dir], 'home.dir', true);
  const visible = paths(home.visible ?? [], 'home.visible', true);
  return { dir: dir as string, visible };
}

function protectedPaths(value: readonly string[]): ProtectedPath[] {
  if (!Array.isArray(value)) throw invalid('sandbox.protect must be an array of absolute paths.');
  // Not resolved through links: the path is the name a later reader (git, a client) opens, and a
  // link there is mounted over as it is (bubblewrap follows it to the mount point).
  return value.map((raw: unknown, i) => {
    const dir = typeof raw === 'string' && raw.length > 1 && raw.endsWith('/');
    const path = checkedPath(dir ? (raw as string).slice(0, -1) : raw, `protect[${i}]`);
    return { path, dir };
  });
}

function processLimit(max: number | null): {
  kind: ProcessLimitKind;
  cgroup: PidsCgroup | undefined;
  prlimit: string | undefined;
} {
  if (max === null) return { kind: 'none', cgroup: undefined, prlimit: undefined };
  // Root is exempt from RLIMIT_NPROC, so for root only a cgroup bounds the count. bwrap is in the
  // cgroup too (the program is the namespace's init, no other): one more than the command's own.
  if (process.getuid?.() === 0) {
    const cgroup = createPidsCgroup(max + 1);
    return { kind: cgroup ? 'cgroup' : 'none', cgroup, prlimit: undefined };
  }
  const prlimit = PRLIMIT_PATHS.find((path) => existsSync(path));
  return { kind: prlimit ? 'rlimit' : 'none', cgroup: undefined, prlimit };
}

function envRestore(pwd: string, file: string): { envFile: string; pwd: string } {
  const envFile = ENV_PATHS.find((path) => existsSync(path));
  if (envFile === undefined || file.includes('=')) {
    throw invalid(
      envFile === undefined
        ? 'a confined run with a PWD other than its working directory starts the program through env(1), which was not found at /usr/bin/env or /bin/env; install coreutils, or leave PWD out of the env.'
        : `the executable path ${file} contains "=", which env(1) would read as a variable; confined, run it through a path without "=" (a symlink), or leave PWD out of the env.`,
    );
  }
  return { envFile, pwd };
}

/**
 * Plans one confined run of `file args…` in `cwd`: the mechanism's argv and the confinement it
 * gives. Throws {@link ExecError} `invalid_sandbox` for a malformed policy or a `cwd` the policy
 * does not let the program read, and `sandbox_unavailable` when this machine has no working
 * mechanism (the message says what to install).
 */
export function planSandbox(
  policy: SandboxPolicy,
  target: {
    readonly file: string;
    readonly args: readonly string[];
    readonly cwd: string;
    /** The caller's `PWD`, if its env has one. */
    readonly pwd?: string | undefined;
  },
  detection: SandboxDetection = detectSandbox(),
): SandboxLaunch {
  const normalized = normalizePolicy(policy);
  if (!detection.available) {
    throw new ExecError(
      ExecErrorCode.sandbox_unavailable,
      `the run asks for a sandbox but none can be started here: ${detection.reason}. To fix: ${detection.hint}.`,
    );
  }
  if (normalized.read !== 'all') {
    const readable = [...SYSTEM_READ_PATHS, ...normalized.read, ...normalized.write];
    if (!within(target.cwd, readable)) {
      throw invalid(
        `the working directory ${target.cwd} is outside the sandbox's read and write paths; add it (or a parent) to sandbox read.`,
      );
    }
  } else if (normalized.home !== null) {
    const { dir, visible } = normalized.home;
    if (within(target.cwd, [dir]) && !within(target.cwd, [...visible, ...normalized.write])) {
      throw invalid(
        `the working directory ${target.cwd} is in the home ${dir}, which the sandbox hides but for ${visible.join(', ') || 'nothing'}; add it (or a parent) to sandbox home.visible.`,
      );
    }
  }
  const base = {
    confined: true as const,
    read: normalized.read,
    write: normalized.write,
    deny: normalized.deny,
    network: normalized.network,
    ...(normalized.home === null ? {} : { home: normalized.home }),
    ...(normalized.protect.length === 0 ? {} : { protect: normalized.protect.map((p) => p.path) }),
  };
  const allowed = normalized.unixSockets;
  if (detection.mechanism === 'seatbelt') {
    const profile = seatbeltProfile(normalized, target.file);
    return {
      file: detection.file,
      args: seatbeltArgs(profile, target.file, target.args),
      // Seatbelt has no process-count bound and no pid namespace: see docs/exec.md.
      confinement: {
        ...base,
        mechanism: 'seatbelt',
        processes: normalized.processes === null ? null : { max: normalized.processes, enforcedBy: 'none' },
        pidNamespace: false,
        unixSockets: { allowed, enforcedBy: 'seatbelt' },
      },
      cgroup: undefined,
      seccomp: undefined,
      protect: undefined,
    };
  }
  // bubblewrap sets PWD to the working directory. Only a caller's PWD that differs from it needs
  // env(1) to put it back (one more exec, ~2 ms): the program sees the caller's environment, with
  // PWD naming its working directory when the caller gave none (docs/exec.md).
  const restorePwd =
    target.pwd === undefined || target.pwd === target.cwd ? undefined : envRestore(target.pwd, target.file);
  const limit = processLimit(normalized.processes);
  const filtered = seccompSupported();
  const protect = normalized.protect.length === 0 ? undefined : holdProtected(normalized.protect);
  const args = bwrapArgs(normalized, {
    protectKinds: protect?.kinds ?? [],
    seccompFd: filtered ? SECCOMP_FD : null,
    file: target.file,
    args: target.args,
    cwd: target.cwd,
    restorePwd,
    unshareUser: limit.prlimit !== undefined,
    prlimit:
      limit.prlimit !== undefined && normalized.processes !== null
        ? { file: limit.prlimit, max: normalized.processes + 1 }
        : null,
  });
  const launch = limit.cgroup?.wrap(detection.file, args) ?? { file: detection.file, args };
  return {
    file: launch.file,
    args: launch.args,
    confinement: {
      ...base,
      mechanism: 'bwrap',
      processes: normalized.processes === null ? null : { max: normalized.processes, enforcedBy: limit.kind },
      pidNamespace: true,
      unixSockets: { allowed, enforcedBy: filtered ? 'seccomp' : 'none' },
    },
    cgroup: limit.cgroup,
    seccomp: filtered ? encodedFilter(allowed.length > 0) : undefined,
    protect,
  };
}
