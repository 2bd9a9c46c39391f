import type { NormalizedPolicy } from './bwrap';
import { SYSTEM_READ_PATHS } from './types';

/** A Seatbelt profile and the `-D NAME=path` parameters it reads its paths from. */
export interface SeatbeltProfile {
  readonly profile: string;
  readonly params: readonly (readonly [name: string, value: string])[];
}

// What any program needs to start and exit on macOS, whatever the policy.
const BASE = [
  '(version 1)',
  '(deny default)',
  '(allow process-exec)',
  '(allow process-fork)',
  '(allow signal (target same-sandbox))',
  '(allow process-info* (target same-sandbox))',
  '(allow sysctl-read)',
  '(allow mach-lookup)',
  '(allow ipc-posix-shm)',
  '(allow file-read-metadata)',
  '(allow file-write-data file-ioctl (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty"))',
];

const NETWORK: Record<NormalizedPolicy['network'], readonly string[]> = {
  none: [],
  loopback: [
    '(allow network-outbound (remote ip "localhost:*"))',
    '(allow network-inbound network-bind (local ip "localhost:*"))',
  ],
  host: ['(allow network*)'],
};

/**
 * The `sandbox-exec` profile for a policy. Paths never appear in the profile text: each is passed
 * as a parameter (`-D READ_0=/path`) and referenced as `(param "READ_0")`, so a path with quotes,
 * parentheses or backslashes cannot change the profile. In SBPL the last matching rule wins, which
 * is why the deny rules come last.
 */
export function seatbeltProfile(policy: NormalizedPolicy, file: string): SeatbeltProfile {
  const params: [string, string][] = [];
  const param = (prefix: string, index: number, value: string): string => {
    const name = `${prefix}_${index}`;
    params.push([name, value]);
    return `(param "${name}")`;
  };
  const lines = [...BASE];
  if (policy.read === 'all') {
    lines.push('(allow file-read*)');
    if (policy.home !== null) {
      // Home by allow-list: hidden, then what the run needs of it readable again (last rule wins).
      lines.push(`(deny file-read* (subpath ${param('HOME', 0, policy.home.dir)}))`);
      const visible = policy.home.visible.map((path, i) => `(subpath ${param('VISIBLE', i, path)})`);
      lines.push(`(allow file-read* ${visible.join(' ')} (literal ${param('EXE', 0, file)}))`);
    }
  } else {
    const roots = [...SYSTEM_READ_PATHS, ...policy.read];
    const subpaths = roots.map((path, i) => `(subpath ${param('READ', i, path)})`);
    lines.push(`(allow file-read* ${subpaths.join(' ')} (literal ${param('EXE', 0, file)}))`);
  }
  if (policy.write.length > 0) {
    const subpaths = policy.write.map((path, i) => `(subpath ${param('WRITE', i, path)})`);
    lines.push(`(allow file-read* file-write* ${subpaths.join(' ')})`);
  }
  if (policy.protect.length > 0) {
    // Kept read-only inside the write paths; a missing one cannot be created either.
    const subpaths = policy.protect.map(({ path }, i) => `(subpath ${param('PROTECT', i, path)})`);
    lines.push(`(deny file-write* ${subpaths.join(' ')})`);
  }
  lines.push(...NETWORK[policy.network]);
  // Unix sockets: none, whatever the network setting (`network*` would allow them), but those listed.
  lines.push('(deny network-outbound (remote unix-socket))');
  if (policy.unixSockets.length > 0) {
    const literals = policy.unixSockets.map((path, i) => `(path-literal ${param('SOCKET', i, path)})`);
    lines.push(`(allow network-outbound (remote unix-socket ${literals.join(' ')}))`);
  }
  if (policy.deny.length > 0) {
    const subpaths = policy.deny.map((path, i) => `(subpath ${param('DENY', i, path)})`);
    lines.push(`(deny file-read* file-write* ${subpaths.join(' ')})`);
  }
  return { profile: `${lines.join('\n')}\n`, params };
}

/** The `sandbox-exec` arguments that run `file args…` under the profile. */
export function seatbeltArgs(profile: SeatbeltProfile, file: string, args: readonly string[]): string[] {
  const out = ['-p', profile.profile];
  for (const [name, value] of profile.params) out.push('-D', `${name}=${value}`);
  out.push(file, ...args);
  return out;
}
