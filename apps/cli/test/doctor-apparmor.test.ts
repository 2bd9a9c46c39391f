// harness doctor where AppArmor blocks bubblewrap (Ubuntu 23.10+, 24.04 LTS): the sandbox row
// recognises the restriction and prints the profile for the bwrap found; --fix installs it as root.
// The kernel here cannot reproduce the restriction: a stand-in bwrap fails as Ubuntu's does, and
// the sysctl's value is given to the check, as the machine would answer it.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AppArmorUsernsRestriction, detectSandbox } from '@harness/exec';
import { afterAll, describe, expect, it } from 'vitest';
import { appArmorInstructions, fixAppArmor, sandboxCheck } from '../src/commands/doctor-sandbox';
import { runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

// What bwrap prints on Ubuntu 24.04 without a profile granting userns.
const UID_MAP = 'bwrap: setting up uid map: Permission denied';
const LOOPBACK = 'bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted';

// A bwrap that answers --version and fails to start a sandbox as Ubuntu 24.04's does.
const bin = join(box.root, 'ubuntu-bin');
mkdirSync(bin, { recursive: true });
const bwrap = join(bin, 'bwrap');
writeFileSync(
  bwrap,
  `#!/bin/sh\nif [ "$1" = --version ]; then echo 'bubblewrap 0.9.0'; exit 0; fi\necho '${UID_MAP}' >&2\necho '${LOOPBACK}' >&2\nexit 1\n`,
);
chmodSync(bwrap, 0o755);
const detection = detectSandbox({ path: bin, platform: 'linux' });

const required = join(box.root, 'required.yaml');
writeFileSync(
  required,
  'version: 1\nsandbox_mode: required\ncommand_packs:\n  - id: t\n    commands:\n      - { id: c, argv: [cat, "{{file}}"], effects: read }\n',
);

/** A restriction whose profile goes to `dir` instead of /etc/apparmor.d. */
function restrictionIn(dir: string, found: AppArmorUsernsRestriction): AppArmorUsernsRestriction {
  const profileFile = join(dir, 'bwrap');
  return { ...found, profileFile, load: ['apparmor_parser', '-r', profileFile] };
}

describe('harness doctor where AppArmor blocks bubblewrap', () => {
  it('recognises the restriction from the sysctl at 1 and the failure bwrap printed, and carries the profile for that bwrap [SEC-14]', async () => {
    const row = await sandboxCheck(undefined, { detection, sysctl: '1' });
    expect(row.status).toBe('warn');
    expect(row.detail).toBe(
      `AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1), so ${bwrap} cannot start a sandbox (${UID_MAP}): pack commands run unconfined (sandbox_mode preferred); as root, install the AppArmor profile for ${bwrap} printed below as /etc/apparmor.d/bwrap and load it (apparmor_parser -r /etc/apparmor.d/bwrap), or run harness doctor --fix as root`,
    );
    expect(row.apparmor?.profile).toContain(`profile bwrap ${bwrap} flags=(unconfined) {\n  userns,\n`);

    const strict = await sandboxCheck(required, { detection, sysctl: '1' });
    expect(strict.status).toBe('fail');
    expect(strict.detail).toContain('packs with confined commands are left out (sandbox_mode required)');
  });

  it('keeps the plain failure where the sysctl is 0 or absent: no profile is offered [SEC-14]', async () => {
    for (const sysctl of ['0', undefined]) {
      const row = await sandboxCheck(undefined, { detection, sysctl });
      expect(row.apparmor).toBeUndefined();
      expect(row.detail).toMatch(
        new RegExp(
          `^${bwrap} is installed but could not start a sandbox: ${UID_MAP}: pack commands run unconfined`,
        ),
      );
    }
  });

  it('prints the profile as commands that, pasted into a shell, write it whole [SEC-14]', async () => {
    const row = await sandboxCheck(undefined, { detection, sysctl: '1' });
    if (row.apparmor === undefined) throw new Error('the restriction was not recognised');
    const target = join(box.root, 'pasted');
    mkdirSync(target);
    const restriction = restrictionIn(target, row.apparmor);
    const lines = appArmorInstructions(restriction);
    expect(lines.at(-1)).toBe(`sudo apparmor_parser -r ${restriction.profileFile}`);
    // Everything but the load, without sudo (this test is not root's business), run by sh.
    const script = lines
      .slice(0, -1)
      .map((l) => l.replace(/^sudo /, ''))
      .join('\n');
    execFileSync('sh', ['-c', script]);
    expect(readFileSync(restriction.profileFile, 'utf8')).toBe(restriction.profile);
  });

  it('--fix writes the profile and loads it as root, and asks for root otherwise [SEC-14]', async () => {
    const row = await sandboxCheck(undefined, { detection, sysctl: '1' });
    if (row.apparmor === undefined) throw new Error('the restriction was not recognised');
    const etc = join(box.root, 'etc-apparmor.d');
    mkdirSync(etc);
    const restriction = restrictionIn(etc, row.apparmor);
    // A stand-in apparmor_parser that records its arguments.
    const calls = join(box.root, 'parser-calls');
    const parser = join(box.root, 'apparmor_parser');
    writeFileSync(parser, `#!/bin/sh\necho "$@" >> '${calls}'\n`);
    chmodSync(parser, 0o755);

    const asUser = fixAppArmor(restriction, { root: false, parser });
    expect(asUser).toEqual({
      status: 'fail',
      detail: `writing ${restriction.profileFile} needs root: run sudo harness doctor --fix, or the commands printed below`,
    });
    expect(existsSync(restriction.profileFile)).toBe(false);

    const asRoot = fixAppArmor(restriction, { root: true, parser });
    expect(asRoot.status).toBe('ok');
    expect(readFileSync(restriction.profileFile, 'utf8')).toBe(restriction.profile);
    expect(statSync(restriction.profileFile).mode & 0o777).toBe(0o644);
    expect(readFileSync(calls, 'utf8')).toBe(`-r ${restriction.profileFile}\n`);

    // A different profile already there is never overwritten.
    writeFileSync(restriction.profileFile, 'profile bwrap /usr/bin/bwrap { }\n');
    const differs = fixAppArmor(restriction, { root: true, parser });
    expect(differs.status).toBe('fail');
    expect(differs.detail).toContain('exists and differs');
    expect(readFileSync(restriction.profileFile, 'utf8')).toBe('profile bwrap /usr/bin/bwrap { }\n');
  });

  it('says so when apparmor_parser refuses the profile [SEC-14]', async () => {
    const row = await sandboxCheck(undefined, { detection, sysctl: '1' });
    if (row.apparmor === undefined) throw new Error('the restriction was not recognised');
    const etc = join(box.root, 'etc-refused');
    mkdirSync(etc);
    const restriction = restrictionIn(etc, row.apparmor);
    const parser = join(box.root, 'refusing_parser');
    writeFileSync(parser, '#!/bin/sh\necho "AppArmor parser error: syntax error" >&2\nexit 1\n');
    chmodSync(parser, 0o755);
    const refused = fixAppArmor(restriction, { root: true, parser });
    expect(refused.status).toBe('fail');
    expect(refused.detail).toContain('failed: AppArmor parser error: syntax error');
  });

  it('on this kernel, which has no such restriction, the row keeps the failure and --fix has nothing to fix [SEC-14]', async () => {
    const r = await runCli(['doctor', '--fix', '--instance', join(box.root, 'instance')], {
      home: box.home,
      env: { PATH: bin },
    });
    if (existsSync('/proc/sys/kernel/apparmor_restrict_unprivileged_userns')) {
      // A kernel with the setting: whatever it reads, the row is one of the two.
      expect(r.stdout).toMatch(/^warn sandbox {3,}(AppArmor restricts|\S+ is installed but could not)/m);
      return;
    }
    expect(r.stdout).toMatch(
      new RegExp(
        `^warn sandbox {3,}${bwrap} is installed but could not start a sandbox: ${UID_MAP}: pack commands run unconfined`,
        'm',
      ),
    );
    expect(r.stdout).not.toContain('apparmor.d');
    expect(r.stdout).toMatch(/^ok {3}fix {3,}nothing to fix: --fix installs the AppArmor profile/m);
    const help = await runCli(['doctor', '--help'], { home: box.home });
    expect(help.stdout).toContain('--fix');
  });
});
