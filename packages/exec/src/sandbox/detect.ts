import { spawnSync } from 'node:child_process';
import { resolveExecutable } from '../resolve';
import type { SandboxDetection } from './types';

// One probe per (platform, PATH): starting a real sandbox is the only reliable test (a bwrap binary
// can exist while the kernel or a security module refuses it the namespaces it needs).
const cache = new Map<string, SandboxDetection>();

/** The flags every confined run uses; the probe starts `true` with exactly these. */
export const BWRAP_PROBE_ARGS: readonly string[] = [
  '--die-with-parent',
  '--unshare-pid',
  '--unshare-net',
  '--ro-bind',
  '/',
  '/',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
];

const LINUX_HINT =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)';

function find(command: string, path: string | undefined): string | undefined {
  try {
    return resolveExecutable(command, path);
  } catch {
    return undefined;
  }
}

function probe(file: string, args: readonly string[]): { ok: boolean; detail: string } {
  const r = spawnSync(file, [...args], {
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
    timeout: 10_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const text = r.status === 0 ? `${r.stdout ?? ''}${r.stderr ?? ''}` : (r.stderr ?? '');
  const detail = text.trim().split('\n')[0] ?? '';
  return { ok: r.status === 0, detail: detail || (r.error?.message ?? `exit ${String(r.status)}`) };
}

function detectBwrap(path: string | undefined): SandboxDetection {
  const file = find('bwrap', path);
  if (file === undefined) {
    return {
      available: false,
      mechanism: 'bwrap',
      reason: `bubblewrap (bwrap) was not found on PATH (${path ?? 'unset'})`,
      hint: LINUX_HINT,
    };
  }
  const version = probe(file, ['--version']);
  const started = probe(file, [...BWRAP_PROBE_ARGS, '--', 'true']);
  if (!started.ok) {
    return {
      available: false,
      mechanism: 'bwrap',
      reason: `${file} is installed but could not start a sandbox: ${started.detail}`,
      hint: 'allow unprivileged user namespaces (Ubuntu 24.04+: an AppArmor profile for bwrap, or sysctl kernel.apparmor_restrict_unprivileged_userns=0; in a container: run it with --security-opt seccomp=unconfined or as root)',
    };
  }
  return {
    available: true,
    mechanism: 'bwrap',
    file,
    version: version.ok ? version.detail.replace(/^bubblewrap\s*/, '') || null : null,
  };
}

function detectSeatbelt(): SandboxDetection {
  const file = '/usr/bin/sandbox-exec';
  const started = probe(file, ['-p', '(version 1)(allow default)', '/usr/bin/true']);
  if (!started.ok) {
    return {
      available: false,
      mechanism: 'seatbelt',
      reason: `${file} could not start a sandbox: ${started.detail}`,
      hint: 'sandbox-exec ships with macOS; check that /usr/bin/sandbox-exec exists and runs',
    };
  }
  return { available: true, mechanism: 'seatbelt', file, version: null };
}

/**
 * Whether runs can be confined here: bubblewrap on Linux (found on `path`, default this process's
 * `PATH`), `sandbox-exec` on macOS. The answer comes from starting a real sandbox once, and is
 * cached per platform and `path`.
 */
export function detectSandbox(
  options: { path?: string | undefined; platform?: NodeJS.Platform } = {},
): SandboxDetection {
  const platform = options.platform ?? process.platform;
  const path = 'path' in options ? options.path : process.env.PATH;
  const key = `${platform}\0${path ?? ''}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  let found: SandboxDetection;
  if (platform === 'linux') found = detectBwrap(path);
  else if (platform === 'darwin') found = detectSeatbelt();
  else {
    found = {
      available: false,
      mechanism: null,
      reason: `no confinement mechanism is supported on ${platform}`,
      hint: 'run on Linux with bubblewrap or on macOS, or set sandbox_mode: off',
    };
  }
  cache.set(key, found);
  return found;
}
