// Another local user must not be able to stand in for the broker. When the instance path is too
// deep for a Unix socket, the socket goes to a runtime directory; a second user who made that
// directory first (mode 777) could move the socket aside and bind their own. Two real users,
// created here as root and removed after, run a copy of the bins they can read (./readable-copy):
// the clone itself may sit where only its owner can enter.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { needs, ROOT } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readableBins } from './readable-copy';

const suffix = `${process.pid % 100000}`;
const alice = `hxalice${suffix}`;
const mallory = `hxmallory${suffix}`;
let shared = '';
let bin = '';
const uidOf = (user: string): number => Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
/** `setpriv` arguments that drop root for `user` (its uid and primary gid, no other groups). */
const as = (user: string): string[] => [
  '--reuid',
  user,
  '--regid',
  execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim(),
  '--clear-groups',
  '--',
];

/** Runs `harness …args` as `user` with exactly `env`, to completion. */
function harnessAs(user: string, args: string[], env: Record<string, string>) {
  try {
    const stdout = execFileSync('setpriv', [...as(user), process.execPath, bin, ...args], {
      // The user's own folder: the clone (this process's folder) may be closed to other users.
      cwd: env.HOME ?? shared,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr: '' };
  } catch (error) {
    const e = error as { status: number | null; stdout: string; stderr: string };
    return { code: e.status ?? -1, stdout: e.stdout, stderr: e.stderr };
  }
}

needs(ROOT, 'useradd', 'setpriv').describe('the fallback socket directory [SEC-1]', () => {
  beforeAll(() => {
    for (const user of [alice, mallory])
      execFileSync('useradd', ['-M', '-N', '-s', '/usr/sbin/nologin', user]);
    shared = mkdtempSync('/tmp/harness-two-users-');
    chmodSync(shared, 0o1777);
    bin = readableBins(join(shared, 'bins'));
  });
  afterAll(() => {
    for (const user of [alice, mallory]) {
      try {
        execFileSync('userdel', [user]);
      } catch {
        // never created
      }
    }
    if (shared) rmSync(shared, { recursive: true, force: true });
  });

  /** A home for alice with an instance path too deep for a socket (over 100 bytes). */
  function aliceHome(name: string): { home: string; instance: string } {
    const home = join(shared, name);
    const instance = join(home, 'a-rather-deep-instance-directory'.repeat(3), 'instance');
    mkdirSync(home, { mode: 0o700 });
    execFileSync('chown', [`${alice}:`, home]);
    return { home, instance };
  }

  it('refuses a runtime directory another user created, and binds nothing there', () => {
    const planted = join(shared, `harness-${uidOf(alice)}`);
    execFileSync('setpriv', [...as(mallory), 'mkdir', '-m', '777', planted]);
    const { home, instance } = aliceHome('alice-1');
    const r = harnessAs(alice, ['call', 'list_commands', '--instance', instance], {
      HOME: home,
      TMPDIR: shared,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${planted} belongs to user ${uidOf(mallory)}`);
    expect(readdirSync(planted)).toEqual([]);
  });

  it('uses $XDG_RUNTIME_DIR when it is set, creating its directory 0700', () => {
    const { home, instance } = aliceHome('alice-2');
    const runtime = join(home, 'runtime');
    execFileSync('setpriv', [...as(alice), 'mkdir', '-m', '700', runtime]);
    const r = harnessAs(alice, ['call', 'list_commands', '--instance', instance], {
      HOME: home,
      TMPDIR: shared,
      XDG_RUNTIME_DIR: runtime,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok' });
    const made = execFileSync('stat', ['-c', '%a %U', join(runtime, 'harness')], { encoding: 'utf8' }).trim();
    expect(made).toBe(`700 ${alice}`);
  });
});
