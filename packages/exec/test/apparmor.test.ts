// The AppArmor user-namespace restriction (Ubuntu 23.10+, 24.04 LTS): recognised from the sysctl's
// value and what bwrap prints there. The kernel here cannot reproduce the restriction, so the tests
// feed both as Ubuntu shows them, and a stand-in bwrap fails exactly that way for the probe.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { detectSandbox, readAppArmorUsernsSysctl, recognizeAppArmorUsernsRestriction } from '../src/index';

const dir = tempDir('exec-apparmor-');
afterAll(() => dir.cleanup());

// What bwrap prints on Ubuntu 24.04 for a user without an AppArmor profile granting userns: the
// namespace is created, but the process holds no capability in it.
const UID_MAP = 'bwrap: setting up uid map: Permission denied\n';
const LOOPBACK = 'bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted\n';

// Ubuntu's documented profile for /usr/bin/bwrap, line for line (the comments aside).
const UBUNTU_PROFILE = [
  'abi <abi/4.0>,',
  'include <tunables/global>',
  'profile bwrap /usr/bin/bwrap flags=(unconfined) {',
  'userns,',
  'include if exists <local/bwrap>',
  '}',
];

const rules = (profile: string) =>
  profile
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

describe('the AppArmor user-namespace restriction', () => {
  it("is recognised from the sysctl at 1 and bwrap's uid map failure, with Ubuntu's profile for that bwrap [SEC-14]", () => {
    const found = recognizeAppArmorUsernsRestriction({
      sysctl: '1',
      stderr: UID_MAP,
      bwrap: '/usr/bin/bwrap',
    });
    expect(found).toEqual({
      bwrap: '/usr/bin/bwrap',
      failure: 'bwrap: setting up uid map: Permission denied',
      profileFile: '/etc/apparmor.d/bwrap',
      profile: expect.any(String),
      load: ['apparmor_parser', '-r', '/etc/apparmor.d/bwrap'],
    });
    expect(rules(found?.profile ?? '')).toEqual(UBUNTU_PROFILE);
  });

  it('is recognised from the loopback failure every --unshare-net run meets, as the sysctl file reads it [SEC-14]', () => {
    const found = recognizeAppArmorUsernsRestriction({
      sysctl: '1\n',
      stderr: `some warning\n${LOOPBACK}`,
      bwrap: '/usr/local/bin/bwrap',
    });
    expect(found?.failure).toBe('bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted');
    // The profile attaches to the binary found, wherever it is.
    expect(rules(found?.profile ?? '')).toContain('profile bwrap /usr/local/bin/bwrap flags=(unconfined) {');
  });

  it('is not claimed where a profile would not help: sysctl 0 or absent, or another failure [SEC-14]', () => {
    const bwrap = '/usr/bin/bwrap';
    expect(recognizeAppArmorUsernsRestriction({ sysctl: '0', stderr: UID_MAP, bwrap })).toBeUndefined();
    expect(recognizeAppArmorUsernsRestriction({ sysctl: undefined, stderr: UID_MAP, bwrap })).toBeUndefined();
    // A container's seccomp filter, a kernel without unprivileged user namespaces.
    for (const stderr of [
      'bwrap: Creating new namespace failed: Operation not permitted\n',
      "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.\n",
      '',
    ]) {
      expect(recognizeAppArmorUsernsRestriction({ sysctl: '1', stderr, bwrap }), stderr).toBeUndefined();
    }
  });

  it('quotes a bwrap path AppArmor would otherwise split [SEC-14]', () => {
    const found = recognizeAppArmorUsernsRestriction({
      sysctl: '1',
      stderr: UID_MAP,
      bwrap: '/opt/my tools/bwrap',
    });
    expect(rules(found?.profile ?? '')).toContain('profile bwrap "/opt/my tools/bwrap" flags=(unconfined) {');
  });

  it('reads the sysctl as the kernel shows it, and nothing where it does not exist', () => {
    const file = join(dir.path, 'apparmor_restrict_unprivileged_userns');
    writeFileSync(file, '1\n');
    expect(readAppArmorUsernsSysctl(file)).toBe('1');
    expect(readAppArmorUsernsSysctl(join(dir.path, 'absent'))).toBeUndefined();
  });

  it('is recognised from what a failing bwrap printed to the probe, whole [SEC-14]', () => {
    // A bwrap that answers --version and fails to start a sandbox as Ubuntu 24.04's does.
    const bin = join(dir.path, 'bin');
    mkdirSync(bin);
    const bwrap = join(bin, 'bwrap');
    writeFileSync(
      bwrap,
      `#!/bin/sh\nif [ "$1" = --version ]; then echo 'bubblewrap 0.9.0'; exit 0; fi\nprintf '%s' '${UID_MAP}${LOOPBACK}' >&2\nexit 1\n`,
    );
    chmodSync(bwrap, 0o755);
    const detection = detectSandbox({ path: bin, platform: 'linux' });
    expect(detection).toMatchObject({ available: false, mechanism: 'bwrap', file: bwrap });
    if (detection.available) throw new Error('the stand-in bwrap cannot start a sandbox');
    expect(detection.reason).toBe(`${bwrap} is installed but could not start a sandbox: ${UID_MAP.trim()}`);
    expect(detection.failure).toBe(`${UID_MAP}${LOOPBACK}`);
    const found = recognizeAppArmorUsernsRestriction({
      sysctl: '1',
      stderr: detection.failure ?? '',
      bwrap: detection.file ?? '',
    });
    expect(found?.failure).toBe(UID_MAP.trim());
    expect(rules(found?.profile ?? '')).toContain(`profile bwrap ${bwrap} flags=(unconfined) {`);
  });
});
