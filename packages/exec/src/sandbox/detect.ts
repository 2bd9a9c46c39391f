import { spawn, spawnSync } from 'node:child_process';
import { resolveExecutable } from '../resolve';
import type { SandboxDetection } from './types';

// One probe per (platform, PATH): starting a real sandbox is the only reliable test (a bwrap binary
// can exist while the kernel or a security module refuses it the namespaces it needs).
const cache = new Map<string, SandboxDetection>();
// Probes started by detectSandboxAsync and not finished yet, by the same key.
const pending = new Map<string, Promise<SandboxDetection>>();

type Probe = { ok: boolean; detail: string; stderr: string };

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

const PROBE_OPTIONS: { env: Record<string, string>; timeout: number; stdio: ['ignore', 'pipe', 'pipe'] } = {
  env: { PATH: '/usr/bin:/bin' },
  timeout: 10_000,
  stdio: ['ignore', 'pipe', 'pipe'],
};

function probeDetail(status: number | null, stdout: string, stderr: string, error?: Error): Probe {
  const text = status === 0 ? `${stdout}${stderr}` : stderr;
  const detail = text.trim().split('\n')[0] ?? '';
  return { ok: status === 0, detail: detail || (error?.message ?? `exit ${String(status)}`), stderr };
}

function probe(file: string, args: readonly string[]): Probe {
  const r = spawnSync(file, [...args], { ...PROBE_OPTIONS, encoding: 'utf8' });
  return probeDetail(r.status, r.stdout ?? '', r.stderr ?? '', r.error);
}

/** The same probe without blocking the event loop. */
function probeAsync(file: string, args: readonly string[]): Promise<Probe> {
  return new Promise((resolve) => {
    const child = spawn(file, [...args], PROBE_OPTIONS);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.once('error', (error) => resolve(probeDetail(null, stdout, stderr, error)));
    child.once('close', (status) => resolve(probeDetail(status, stdout, stderr)));
  });
}

function bwrapMissing(path: string | undefined): SandboxDetection {
  return {
    available: false,
    mechanism: 'bwrap',
    reason: `bubblewrap (bwrap) was not found on PATH (${path ?? 'unset'})`,
    hint: LINUX_HINT,
  };
}

const BWRAP_START: readonly string[] = [...BWRAP_PROBE_ARGS, '--', 'true'];

function detectBwrap(path: string | undefined): SandboxDetection {
  const file = find('bwrap', path);
  if (file === undefined) return bwrapMissing(path);
  return bwrapResult(file, probe(file, ['--version']), probe(file, BWRAP_START));
}

function bwrapResult(file: string, version: Probe, started: Probe): SandboxDetection {
  if (!started.ok) {
    return {
      available: false,
      mechanism: 'bwrap',
      reason: `${file} is installed but could not start a sandbox: ${started.detail}`,
      hint: 'allow unprivileged user namespaces (Ubuntu 24.04+: an AppArmor profile for bwrap, or sysctl kernel.apparmor_restrict_unprivileged_userns=0; in a container: run it with --security-opt seccomp=unconfined or as root)',
      file,
      failure: started.stderr,
    };
  }
  return {
    available: true,
    mechanism: 'bwrap',
    file,
    version: version.ok ? version.detail.replace(/^bubblewrap\s*/, '') || null : null,
  };
}

const SEATBELT = '/usr/bin/sandbox-exec';
const SEATBELT_START: readonly string[] = ['-p', '(version 1)(allow default)', '/usr/bin/true'];

function detectSeatbelt(): SandboxDetection {
  return seatbeltResult(probe(SEATBELT, SEATBELT_START));
}

function seatbeltResult(started: Probe): SandboxDetection {
  const file = SEATBELT;
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
  const { platform, path, key } = probeKey(options);
  const known = cache.get(key);
  if (known !== undefined) return known;
  let found: SandboxDetection;
  if (platform === 'linux') found = detectBwrap(path);
  else if (platform === 'darwin') found = detectSeatbelt();
  else found = unsupported(platform);
  cache.set(key, found);
  return found;
}

/**
 * {@link detectSandbox} without blocking: the probes run as child processes while the caller does
 * other work (a server loading its modules and opening its store), and the answer fills the same
 * cache, so a later `detectSandbox` with the same options answers at once.
 */
export function detectSandboxAsync(
  options: { path?: string | undefined; platform?: NodeJS.Platform } = {},
): Promise<SandboxDetection> {
  const { platform, path, key } = probeKey(options);
  const known = cache.get(key);
  if (known !== undefined) return Promise.resolve(known);
  const running = pending.get(key);
  if (running !== undefined) return running;
  const probing = (async (): Promise<SandboxDetection> => {
    if (platform === 'linux') {
      const file = find('bwrap', path);
      if (file === undefined) return bwrapMissing(path);
      const [version, started] = await Promise.all([
        probeAsync(file, ['--version']),
        probeAsync(file, BWRAP_START),
      ]);
      return bwrapResult(file, version, started);
    }
    if (platform === 'darwin') return seatbeltResult(await probeAsync(SEATBELT, SEATBELT_START));
    return unsupported(platform);
  })().then((found) => {
    // A synchronous detectSandbox may have answered meanwhile; the first answer stays.
    if (!cache.has(key)) cache.set(key, found);
    pending.delete(key);
    return cache.get(key) as SandboxDetection;
  });
  pending.set(key, probing);
  return probing;
}

function probeKey(options: { path?: string | undefined; platform?: NodeJS.Platform }) {
  const platform = options.platform ?? process.platform;
  const path = 'path' in options ? options.path : process.env.PATH;
  return { platform, path, key: `${platform}\0${path ?? ''}` };
}

function unsupported(platform: NodeJS.Platform): SandboxDetection {
  return {
    available: false,
    mechanism: null,
    reason: `no confinement mechanism is supported on ${platform}`,
    hint: 'run on Linux with bubblewrap or on macOS, or set sandbox_mode: off',
  };
}
