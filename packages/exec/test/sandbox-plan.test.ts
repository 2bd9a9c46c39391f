// The parts of confinement that are text: the macOS profile (sandbox-exec cannot run here), the
// bubblewrap command line, and detection on a PATH without bubblewrap.
import { describe, expect, it } from 'vitest';
import { detectSandbox, detectSandboxAsync, ExecErrorCode } from '../src/index';
import { normalizePolicy, planSandbox } from '../src/sandbox/plan';
import { seatbeltArgs, seatbeltProfile } from '../src/sandbox/seatbelt';

const target = { file: '/usr/bin/jq', args: ['-r', '.a', 'data.json'], cwd: '/' };

describe('seatbelt profile', () => {
  it('denies by default, reads only the listed and system paths, writes only the write paths, denies last', () => {
    const policy = normalizePolicy({
      read: ['/Users/ann/proj'],
      write: ['/Users/ann/proj/out'],
      deny: ['/Users/ann/.ssh'],
      network: 'none',
    });
    const { profile, params } = seatbeltProfile(policy, '/usr/bin/jq');
    const lines = profile.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['(version 1)', '(deny default)']);
    expect(lines.filter((line) => line.includes('network'))).toEqual([
      '(deny network-outbound (remote unix-socket))',
    ]);
    expect(profile).not.toContain('/Users/ann');
    expect(lines.at(-1)).toBe('(deny file-read* file-write* (subpath (param "DENY_0")))');
    expect(profile).toContain('(allow file-read* file-write* (subpath (param "WRITE_0")))');
    expect(params).toContainEqual(['READ_14', '/Users/ann/proj']);
    expect(params).toContainEqual(['WRITE_0', '/Users/ann/proj/out']);
    expect(params).toContainEqual(['DENY_0', '/Users/ann/.ssh']);
    expect(params).toContainEqual(['EXE_0', '/usr/bin/jq']);
  });

  it('keeps a path with quotes and parentheses out of the profile text', () => {
    const evil = '/tmp/x") (allow default) ("';
    const { profile, params } = seatbeltProfile(normalizePolicy({ write: [evil] }), '/usr/bin/true');
    expect(profile).not.toContain('allow default');
    expect(params).toContainEqual(['WRITE_0', evil]);
    expect(seatbeltArgs({ profile, params }, '/usr/bin/true', ['a'])).toEqual([
      '-p',
      profile,
      '-D',
      `WRITE_0=${evil}`,
      '/usr/bin/true',
      'a',
    ]);
  });

  it('maps each network setting to its rules', () => {
    const rules = (network: 'none' | 'loopback' | 'host') =>
      seatbeltProfile(normalizePolicy({ network }), '/usr/bin/true')
        .profile.split('\n')
        .filter((line) => line.includes('network'));
    const unix = '(deny network-outbound (remote unix-socket))';
    expect(rules('none')).toEqual([unix]);
    expect(rules('loopback')).toEqual([
      '(allow network-outbound (remote ip "localhost:*"))',
      '(allow network-inbound network-bind (local ip "localhost:*"))',
      unix,
    ]);
    expect(rules('host')).toEqual(['(allow network*)', unix]);
  });

  it('denies every Unix socket after the network rules, then allows only those listed [SEC-15]', () => {
    const { profile, params } = seatbeltProfile(
      normalizePolicy({ network: 'host', unixSockets: ['/var/run/x.sock'] }),
      '/usr/bin/true',
    );
    const lines = profile.trim().split('\n');
    const deny = lines.indexOf('(deny network-outbound (remote unix-socket))');
    expect(deny).toBeGreaterThan(lines.indexOf('(allow network*)'));
    expect(lines[deny + 1]).toBe(
      '(allow network-outbound (remote unix-socket (path-literal (param "SOCKET_0"))))',
    );
    expect(params).toContainEqual(['SOCKET_0', '/var/run/x.sock']);
  });

  it('is what a run plans on macOS, with no process bound and no pid namespace', () => {
    const launch = planSandbox({ processes: 8 }, target, {
      available: true,
      mechanism: 'seatbelt',
      file: '/usr/bin/sandbox-exec',
      version: null,
    });
    expect(launch.file).toBe('/usr/bin/sandbox-exec');
    expect(launch.args.slice(-4)).toEqual(['/usr/bin/jq', '-r', '.a', 'data.json']);
    expect(launch.confinement).toMatchObject({
      mechanism: 'seatbelt',
      processes: { max: 8, enforcedBy: 'none' },
      pidNamespace: false,
    });
  });
});

describe('bubblewrap command line', () => {
  const bwrap = {
    available: true as const,
    mechanism: 'bwrap' as const,
    file: '/usr/bin/bwrap',
    version: '0.8.0',
  };

  it('puts the program right after "--" with its arguments untouched, the deny mounts last', () => {
    const launch = planSandbox(
      { deny: ['/nonexistent-deny', '/etc/hostname'], network: 'host' },
      target,
      bwrap,
    );
    const args = [...launch.args];
    const end = args.indexOf('--');
    expect(args.slice(end + 1)).toEqual(['/usr/bin/jq', '-r', '.a', 'data.json']);
    expect(args).not.toContain('--unshare-net');
    expect(args.slice(end - 7, end)).toEqual([
      '--ro-bind',
      '/dev/null',
      '/etc/hostname',
      '--seccomp',
      '3',
      '--chdir',
      '/',
    ]);
    expect(args).not.toContain('/nonexistent-deny');
    expect(launch.seccomp?.length).toBeGreaterThan(0);
    expect(launch.confinement).toMatchObject({ unixSockets: { allowed: [], enforcedBy: 'seccomp' } });
  });

  it('puts a caller PWD other than the working directory back through env(1), since bubblewrap sets its own', () => {
    const launch = planSandbox({}, { ...target, pwd: '/elsewhere' }, bwrap);
    const args = [...launch.args];
    expect(args.slice(args.indexOf('--') + 1)).toEqual([
      '/usr/bin/env',
      'PWD=/elsewhere',
      '/usr/bin/jq',
      '-r',
      '.a',
      'data.json',
    ]);
  });
});

describe('detection', () => {
  it('on a PATH without bwrap, says it is missing and how to install it', () => {
    const found = detectSandbox({ path: '/nonexistent', platform: 'linux' });
    expect(found).toEqual({
      available: false,
      mechanism: 'bwrap',
      reason: 'bubblewrap (bwrap) was not found on PATH (/nonexistent)',
      hint: 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)',
    });
    expect(() => planSandbox({}, target, found)).toThrow(
      expect.objectContaining({
        code: ExecErrorCode.sandbox_unavailable,
        message:
          'the run asks for a sandbox but none can be started here: bubblewrap (bwrap) was not found on PATH (/nonexistent). To fix: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap).',
      }),
    );
  });

  it('answers without blocking what the blocking probe answers, and fills the same cache', async () => {
    // Two PATH values that both find this machine's bwrap (or both miss it): two cache keys.
    const early = detectSandboxAsync({ path: '/usr/bin:/bin' });
    expect(detectSandboxAsync({ path: '/usr/bin:/bin' })).toBe(early);
    const found = await early;
    expect(detectSandbox({ path: '/usr/bin:/bin' })).toBe(found);
    // The same machine, whatever the PATH's spelling (a refusal's reason names the PATH it searched).
    const other = detectSandbox({ path: '/usr/bin:/bin:/nonexistent' });
    expect({ available: other.available, mechanism: other.mechanism }).toEqual({
      available: found.available,
      mechanism: found.mechanism,
    });
    expect(await detectSandboxAsync({ path: '/nonexistent', platform: 'linux' })).toMatchObject({
      available: false,
      reason: 'bubblewrap (bwrap) was not found on PATH (/nonexistent)',
    });
  });

  it('names no mechanism on a platform it does not support', () => {
    expect(detectSandbox({ path: '/usr/bin', platform: 'win32' })).toMatchObject({
      available: false,
      mechanism: null,
    });
  });
});
