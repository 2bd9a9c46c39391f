// Ubuntu 23.10 and later (24.04 LTS included) restrict unprivileged user namespaces through
// AppArmor: with the sysctl kernel.apparmor_restrict_unprivileged_userns at 1, a program without an
// AppArmor profile that grants `userns` may create a user namespace but holds no capability in it,
// so bubblewrap fails setting it up and every confined run is refused. The remedy Ubuntu documents
// is a profile for the bwrap binary. Recognising the restriction is a pure function of what the
// sysctl reads and what bwrap printed, so it is tested with both as Ubuntu shows them.
import { readFileSync } from 'node:fs';

/** Where the kernel exposes the restriction: `1` restricted, `0` not; absent where AppArmor lacks it. */
export const APPARMOR_USERNS_SYSCTL = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';

/** Where the profile goes: the directory AppArmor loads its profiles from at boot. */
export const APPARMOR_PROFILE_DIR = '/etc/apparmor.d';

// What bwrap prints when it holds no capability in the user namespace it created: writing its uid or
// gid map is denied, or (with --unshare-net, which every confined run uses) bringing up loopback is.
const USERNS_DENIED: readonly RegExp[] = [
  /setting up [ug]id map: Permission denied/,
  /loopback: Failed RTM_NEWADDR: Operation not permitted/,
  /loopback: Failed RTM_NEWLINK: Operation not permitted/,
];

/** The restriction, recognised: the profile that lifts it for one bwrap binary, and how to load it. */
export interface AppArmorUsernsRestriction {
  /** The bwrap binary the profile is for (its real path: AppArmor attaches profiles by path). */
  readonly bwrap: string;
  /** The line bwrap printed that shows the namespace was denied. */
  readonly failure: string;
  /** Where the profile is written. */
  readonly profileFile: string;
  /** The profile, whole. */
  readonly profile: string;
  /** What loads it, as root, once written. */
  readonly load: readonly string[];
}

/** The sysctl's value as read (trimmed), or undefined where the kernel has no such setting. */
export function readAppArmorUsernsSysctl(file: string = APPARMOR_USERNS_SYSCTL): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** A path as an AppArmor profile may name it: quoted when it holds a space or a quote-worthy character. */
function profilePath(path: string): string {
  return /^[A-Za-z0-9_./+-]+$/.test(path) ? path : `"${path.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * The AppArmor profile that lets `bwrap` (an absolute, real path) create user namespaces, as Ubuntu
 * documents it: unconfined, with the `userns` permission, and the site's local additions.
 */
export function bwrapAppArmorProfile(bwrap: string): string {
  return [
    '# Lets bubblewrap create unprivileged user namespaces where AppArmor restricts them',
    '# (kernel.apparmor_restrict_unprivileged_userns = 1). Written for harness command confinement.',
    'abi <abi/4.0>,',
    'include <tunables/global>',
    '',
    `profile bwrap ${profilePath(bwrap)} flags=(unconfined) {`,
    '  userns,',
    '',
    '  # Site-specific additions and overrides. See local/README for details.',
    '  include if exists <local/bwrap>',
    '}',
    '',
  ].join('\n');
}

/**
 * Whether bwrap failed because AppArmor restricts unprivileged user namespaces: the sysctl reads `1`
 * and bwrap's stderr holds one of the failures that restriction causes. Undefined otherwise (no
 * such sysctl, `0`, or another failure: a container's seccomp filter, a kernel without user
 * namespaces), where a profile would not help.
 */
export function recognizeAppArmorUsernsRestriction(input: {
  /** The sysctl's value ({@link readAppArmorUsernsSysctl}); undefined where it does not exist. */
  readonly sysctl: string | undefined;
  /** What the failed bwrap probe printed on stderr. */
  readonly stderr: string;
  /** The bwrap binary that failed, its real path. */
  readonly bwrap: string;
}): AppArmorUsernsRestriction | undefined {
  if (input.sysctl?.trim() !== '1') return undefined;
  const failure = input.stderr
    .split('\n')
    .map((line) => line.trim())
    .find((line) => USERNS_DENIED.some((pattern) => pattern.test(line)));
  if (failure === undefined) return undefined;
  const profileFile = `${APPARMOR_PROFILE_DIR}/bwrap`;
  return {
    bwrap: input.bwrap,
    failure,
    profileFile,
    profile: bwrapAppArmorProfile(input.bwrap),
    load: ['apparmor_parser', '-r', profileFile],
  };
}
