// Confinement with bubblewrap: real processes, real files, a real TCP server. Every "cannot" has
// its "can" beside it, so a sandbox that blocks everything (or nothing) fails here.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { needs, repoRoot, sandboxMechanism, tempDir } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { detectSandbox, ExecErrorCode, run, type SandboxPolicy } from '../src/index';
import { env, node, printArgv } from './helpers';

const suite = needs(sandboxMechanism(detectSandbox())).describe;

const dir = tempDir('exec-sandbox-');
const home = join(dir.path, 'home');
const out = join(dir.path, 'out');
// A folder outside /tmp (the run gets a private /tmp of its own, so anything under the host's /tmp
// is simply absent there, wherever the repository itself was cloned) and outside the system paths.
const visible = mkdtempSync('/var/tmp/exec-sandbox-');
const elsewhere = join(visible, 'elsewhere');
const outside = join(visible, 'outside.json');
afterAll(() => {
  dir.cleanup();
  rmSync(visible, { recursive: true, force: true });
});
beforeAll(() => {
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  writeFileSync(join(home, 'notes.txt'), 'public notes\n');
  mkdirSync(out);
  mkdirSync(elsewhere);
  writeFileSync(outside, '{"outside": true}\n');
});

const sh = (script: string, sandbox: SandboxPolicy, extra: Partial<Parameters<typeof run>[0]> = {}) =>
  run({ argv: ['sh', '-c', script], env, cwd: home, sandbox, timeoutMs: 10_000, ...extra });

// Processes whose argv holds `marker`, found through /proc as any user of the machine would.
function withMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(marker)) found.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

suite('sandbox: filesystem', () => {
  it('writes inside a write path and cannot write outside it, the repository included [SEC-14]', async () => {
    const escapee = join(repoRoot, `sandbox-escape-${process.pid}`);
    const r = await sh(
      `echo kept > "${out}/made.txt"; echo escaped > "${escapee}"; echo escaped > "${elsewhere}/x"`,
      {
        write: [out],
      },
    );
    expect(readFileSync(join(out, 'made.txt'), 'utf8')).toBe('kept\n');
    expect(existsSync(escapee)).toBe(false);
    expect(existsSync(join(elsewhere, 'x'))).toBe(false);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(r.confinement).toMatchObject({ confined: true, mechanism: 'bwrap', write: [out] });
  });

  it('reads the home but never a denied path under it, not even from the working directory [SEC-14]', async () => {
    const r = await sh('cat notes.txt; cat .ssh/id_ed25519; ls -A .ssh; echo end', {
      deny: [join(home, '.ssh')],
    });
    expect(r.stdout).toBe('public notes\nend\n');
    expect(r.stdout).not.toContain('PRIVATE');
    expect(r.stderr).toContain('No such file or directory');
  });

  it('with a read list, reads only those paths and the system, and a denied file under one stays hidden [SEC-14]', async () => {
    const r = await sh(`cat notes.txt; cat "${outside}" | head -c 1; cat .ssh/id_ed25519`, {
      read: [home],
      deny: [join(home, '.ssh', 'id_ed25519')],
    });
    expect(r.stdout).toBe('public notes\n');
    expect(r.stderr).toContain(outside);
    const control = await sh(`cat "${outside}" | head -c 1`, {});
    expect(control.stdout).toBe('{');
  });

  it('a write path outside the read list is writable and the working directory must be readable [SEC-14]', async () => {
    const r = await sh(`echo w > "${out}/w.txt"`, { read: [home], write: [out] });
    expect(r.ok).toBe(true);
    expect(readFileSync(join(out, 'w.txt'), 'utf8')).toBe('w\n');
    await expect(sh('true', { read: [out] })).rejects.toMatchObject({ code: ExecErrorCode.invalid_sandbox });
  });

  it('gives the run a private, empty, writable /tmp that is gone afterwards [SEC-14]', async () => {
    const r = await sh('ls -A /tmp | wc -l; echo t > /tmp/scratch && cat /tmp/scratch', {}, { cwd: '/' });
    expect(r.stdout).toBe('0\nt\n');
  });
});

suite('sandbox: network', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const connect = (sandbox: SandboxPolicy) =>
    run({
      argv: [
        node,
        '-e',
        `require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write(d)).on('error', (e) => { process.stdout.write(e.code); process.exitCode = 3; })`,
      ],
      env,
      sandbox,
      timeoutMs: 10_000,
    });

  it('cannot connect to a TCP server on the host loopback with network none [SEC-14]', async () => {
    const r = await connect({ network: 'none' });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('ECONNREFUSED');
  });

  it('loopback is the run’s own: the host’s server is not reachable there either [SEC-14]', async () => {
    const r = await connect({ network: 'loopback' });
    expect(r.stdout).toBe('ECONNREFUSED');
  });

  it('reaches the same server with network host [SEC-14]', async () => {
    const r = await connect({ network: 'host' });
    expect(r.stdout).toBe('hello from the host\n');
    expect(r.confinement).toMatchObject({ network: 'host' });
  });
});

suite('sandbox: processes', () => {
  const spawnMany = 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1 & done; echo started; wait';

  it('cannot have more processes alive than processes allows [SEC-14]', async () => {
    // Long sleeps, so none has ended (and freed its slot) before the loop is through.
    const r = await sh('for i in 1 2 3 4 5 6 7 8 9 10; do sleep 30 & done; echo started', { processes: 4 });
    expect(r.stderr).toMatch(/fork/i);
    expect(r.confinement).toMatchObject({ processes: { max: 4 } });
    expect(r.confinement.confined && r.confinement.processes?.enforcedBy).not.toBe('none');
  });

  it('counts the program itself: with processes 4, a shell starts three children and not a fourth [SEC-14]', async () => {
    const three = await sh(
      'for i in 1 2 3; do sleep 5 & done; echo started',
      { processes: 4 },
      { timeoutMs: 2_000 },
    );
    expect(three.stdout).toBe('started\n');
    expect(three.stderr).toBe('');
    const four = await sh(
      'for i in 1 2 3 4; do sleep 5 & done; echo started',
      { processes: 4 },
      { timeoutMs: 2_000 },
    );
    expect(four.stdout).toBe('');
    expect(four.stderr).toMatch(/fork/i);
  });

  it('starts as many as processes allows [SEC-14]', async () => {
    const r = await sh(spawnMany, { processes: 16 }, { timeoutMs: 5_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('started\n');
    expect(r.ok).toBe(true);
  });
});

suite('sandbox: nothing of the run survives it', () => {
  it('a child that called setsid and sleeps is gone after the timeout [SEC-14]', async () => {
    const marker = `harness-setsid-${process.pid}-${Date.now()}`;
    const r = await sh(
      `setsid sh -c 'sleep 300' ${marker} & sleep 300`,
      {},
      { timeoutMs: 300, killGraceMs: 100 },
    );
    expect(r.outcome).toBe('timed_out');
    expect(withMarker(marker)).toEqual([]);
  });

  it('a double-forked daemon is gone when the command exits on its own [SEC-14]', async () => {
    const marker = `harness-daemon-${process.pid}-${Date.now()}`;
    const r = await sh(`(setsid sh -c 'sleep 300' ${marker} > /dev/null 2>&1 &) ; echo parent-done`, {});
    expect(r.stdout).toBe('parent-done\n');
    expect(withMarker(marker)).toEqual([]);
  });
});

suite('sandbox: arguments still arrive byte for byte', () => {
  // Strings that break shells, option parsers and the sandbox's own command line.
  const naughty = [
    '',
    ' ',
    '--',
    '-',
    '--bind',
    '/',
    '--ro-bind / /',
    '--unshare-net',
    '-c',
    '; rm -rf / #',
    '$(whoami)',
    '`id`',
    '$' + '{HOME}',
    '\'"\\',
    'a\nb\r\nc',
    '\t\v\f',
    '*',
    '%s%n%x',
    '../../../../etc/passwd',
    'Ω≈ç√∫˜µ≤≥÷',
    '𝓽𝓮𝓼𝓽 🐍 👨‍👩‍👧',
    '‮right-to-left‬',
    '\u200b\ufeff',
    'x'.repeat(4096),
  ];

  it('every naughty string reaches the confined program unchanged [CP-33] [SEC-14]', async () => {
    const r = await run({
      argv: [node, '-e', printArgv, ...naughty],
      env,
      sandbox: { read: [home], write: [out] },
      cwd: home,
    });
    expect(JSON.parse(r.stdout)).toEqual(naughty);
  });
});

suite('sandbox: reporting and refusal', () => {
  it('says a run without a sandbox was not confined', async () => {
    const r = await run({ argv: ['true'], env });
    expect(r.confinement).toEqual({ confined: false });
  });

  it('refuses a relative path in the policy and spawns nothing', async () => {
    await expect(run({ argv: ['true'], env, sandbox: { write: ['out'] } })).rejects.toMatchObject({
      code: ExecErrorCode.invalid_sandbox,
      message: expect.stringContaining('sandbox.write[0] must be an absolute path'),
    });
  });
});

suite('sandbox: the environment rule holds', () => {
  it('the confined program sees exactly the env given, with PWD naming its working directory unless the caller gave another', async () => {
    const show = async (extra: Record<string, string>) =>
      (await run({ argv: ['env'], env: { ...env, ...extra }, cwd: home, sandbox: {} })).stdout
        .split('\n')
        .filter((line) => line !== '')
        .sort();
    expect(await show({ A: '$' + '{B}' })).toEqual([`A=\${B}`, `PATH=${env.PATH}`, `PWD=${home}`]);
    expect(await show({ PWD: '/somewhere/else' })).toEqual([`PATH=${env.PATH}`, 'PWD=/somewhere/else']);
    expect(await show({ PWD: home })).toEqual([`PATH=${env.PATH}`, `PWD=${home}`]);
  });
});
