// The seccomp program bubblewrap installs: run on a small classic-BPF interpreter against what the
// kernel would hand it, and in real confined runs against real Unix-socket servers.
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { needs, sandboxMechanism, tempDir } from '@harness/test-utils';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpawner, detectSandbox, run, type SandboxPolicy } from '../src/index';
import {
  type BpfInstruction,
  EPERM,
  encodeFilter,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  seccompFilter,
} from '../src/sandbox/seccomp';
import { env, node } from './helpers';

/** Runs a seccomp program on one system call, as the kernel would: the value it returns. */
function evaluate(
  program: readonly BpfInstruction[],
  call: { arch: number; nr: number; arg0: number },
): number {
  let a = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const ins = program[pc] as BpfInstruction;
    switch (ins.code) {
      case 0x20:
        a =
          ins.k === 0 ? call.nr >>> 0 : ins.k === 4 ? call.arch >>> 0 : ins.k === 16 ? call.arg0 >>> 0 : NaN;
        if (Number.isNaN(a)) throw new Error(`load of offset ${ins.k}`);
        break;
      case 0x15:
        pc += a === ins.k >>> 0 ? ins.jt : ins.jf;
        break;
      case 0x35:
        pc += a >= ins.k >>> 0 ? ins.jt : ins.jf;
        break;
      case 0x05:
        pc += ins.k;
        break;
      case 0x06:
        return ins.k >>> 0;
      default:
        throw new Error(`opcode ${ins.code}`);
    }
  }
  throw new Error('the program ran off its end');
}

const DENY = (SECCOMP_RET_ERRNO | EPERM) >>> 0;
const X86_64 = 0xc000_003e;
const I386 = 0x4000_0003;
const AARCH64 = 0xc000_00b7;
const ARM = 0x4000_0028;

/** What the filter must decide, written out plainly. */
function expected(unixAllowed: boolean, call: { arch: number; nr: number; arg0: number }): number {
  const ioUring = [425, 426, 427].includes(call.nr);
  const unix = !unixAllowed && call.arg0 === 1;
  switch (call.arch) {
    case X86_64:
      return call.nr >= 0x4000_0000 || ioUring || (call.nr === 41 && unix) ? DENY : SECCOMP_RET_ALLOW;
    case I386:
      return ioUring || call.nr === 102 || (call.nr === 359 && unix) ? DENY : SECCOMP_RET_ALLOW;
    default:
      return DENY;
  }
}

describe('seccomp program', () => {
  for (const unixSockets of [false, true]) {
    it(`decides every system call as written${unixSockets ? ' with a unix_sockets list' : ''} [SEC-15]`, () => {
      const program = seccompFilter({ arch: 'x64', unixSockets }) as BpfInstruction[];
      const calls = fc.record({
        arch: fc.constantFrom(X86_64, I386, AARCH64, 0x1234),
        nr: fc.oneof(fc.constantFrom(41, 359, 102, 425, 426, 427, 0x4000_0029, 0), fc.nat(0x4000_0100)),
        arg0: fc.oneof(fc.constantFrom(0, 1, 2, 10), fc.nat(0xffff_ffff)),
      });
      fc.assert(
        fc.property(calls, (call) => {
          expect(evaluate(program, call)).toBe(expected(unixSockets, call));
        }),
      );
    });
  }

  it('refuses socket(AF_UNIX) and io_uring on arm64 too, and allows socket(AF_INET) [SEC-15]', () => {
    const program = seccompFilter({ arch: 'arm64' }) as BpfInstruction[];
    expect(evaluate(program, { arch: AARCH64, nr: 198, arg0: 1 })).toBe(DENY);
    expect(evaluate(program, { arch: AARCH64, nr: 198, arg0: 2 })).toBe(SECCOMP_RET_ALLOW);
    expect(evaluate(program, { arch: AARCH64, nr: 426, arg0: 0 })).toBe(DENY);
    expect(evaluate(program, { arch: ARM, nr: 281, arg0: 1 })).toBe(DENY);
    expect(evaluate(program, { arch: X86_64, nr: 41, arg0: 1 })).toBe(DENY);
  });

  it('has no program for an architecture it does not know', () => {
    expect(seccompFilter({ arch: 'riscv64' })).toBeUndefined();
  });

  it('encodes 8 bytes an instruction, little-endian, as struct sock_filter', () => {
    const bytes = encodeFilter([{ code: 0x15, jt: 2, jf: 7, k: 0xc000_003e }]);
    expect([...bytes]).toEqual([0x15, 0x00, 0x02, 0x07, 0x3e, 0x00, 0x00, 0xc0]);
  });
});

const suite = needs(sandboxMechanism(detectSandbox())).describe;

// A confined Node program that connects to `target` and prints what happened.
const connectScript = (target: string) =>
  `const s=require('net').connect(${JSON.stringify(target)});` +
  `s.on('connect',()=>{s.on('data',d=>{process.stdout.write('connected: '+d);s.end()})});` +
  `s.on('error',e=>console.log('refused: '+e.code+' '+e.syscall))`;

suite('confined runs and Unix sockets', () => {
  // Outside /tmp (the run's /tmp is its own), so the socket file itself is visible to the run.
  const dir = tempDir('exec-seccomp-', '/var/tmp');
  const path = join(dir.path, 's.sock');
  const abstract = `\0harness-exec-test-${process.pid}`;
  const servers: Server[] = [];
  beforeAll(async () => {
    for (const where of [path, abstract]) {
      const server = createServer((socket) => socket.end('hello from the host\n'));
      await new Promise<void>((resolve) => server.listen(where, resolve));
      servers.push(server);
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    dir.cleanup();
    rmSync(path, { force: true });
  });

  const attempt = (target: string, sandbox: SandboxPolicy) =>
    run({ argv: [node, '-e', connectScript(target)], env, cwd: dir.path, sandbox, timeoutMs: 20_000 });

  it('cannot connect to a Unix socket on the host, under any network setting [SEC-15]', async () => {
    for (const network of ['none', 'loopback', 'host'] as const) {
      const r = await attempt(path, { network });
      expect(r.stdout).toBe('refused: EPERM connect\n');
      expect(r.confinement).toMatchObject({ unixSockets: { allowed: [], enforcedBy: 'seccomp' } });
    }
  });

  it('is refused the same when a spawner starts it [SEC-15]', async () => {
    const spawner = createSpawner();
    try {
      // The first run starts the spawner (and spawns directly); the ones after go through it.
      for (let i = 0; i < 3; i++) {
        const r = await run({
          argv: [node, '-e', connectScript(path)],
          env,
          cwd: dir.path,
          sandbox: {},
          spawner,
          timeoutMs: 20_000,
        });
        expect(r.stdout).toBe('refused: EPERM connect\n');
      }
    } finally {
      await spawner.close();
    }
  });

  it('cannot reach an abstract Unix socket even sharing the host network [SEC-15]', async () => {
    const r = await attempt(abstract, { network: 'host' });
    expect(r.stdout).toBe('refused: EPERM connect\n');
  });

  it('reaches the same socket unconfined, and confined when unix_sockets lists it [SEC-15]', async () => {
    const free = await run({
      argv: [node, '-e', connectScript(path)],
      env,
      cwd: dir.path,
      timeoutMs: 20_000,
    });
    expect(free.stdout).toBe('connected: hello from the host\n');
    const listed = await attempt(path, { unixSockets: [path] });
    expect(listed.stdout).toBe('connected: hello from the host\n');
    expect(listed.confinement).toMatchObject({ unixSockets: { allowed: [path], enforcedBy: 'seccomp' } });
  });

  it('keeps a listed socket reachable inside a denied directory, and nothing else there [SEC-15]', async () => {
    const r = await run({
      argv: [
        'sh',
        '-c',
        `ls -A "${dir.path}"; ${JSON.stringify(node)} -e ${JSON.stringify(connectScript(path))}`,
      ],
      env,
      cwd: '/',
      sandbox: { deny: [dir.path], unixSockets: [path] },
      timeoutMs: 20_000,
    });
    expect(r.stdout).toBe('s.sock\nconnected: hello from the host\n');
  });

  it('still opens internet sockets and socket pairs, which reach nothing outside its namespace [SEC-15]', async () => {
    const r = await run({
      argv: [
        node,
        '-e',
        `const net=require('net');const s=net.createServer(c=>c.end('pong')).listen(0,'127.0.0.1',()=>{` +
          `net.connect(s.address().port,'127.0.0.1').on('data',d=>{console.log(String(d));s.close()})});` +
          `require('child_process').execFile('true',(e)=>console.log(e?'no child':'child ran'))`,
      ],
      env,
      cwd: '/',
      sandbox: { network: 'loopback' },
      timeoutMs: 20_000,
    });
    expect(r.stdout.split('\n').sort()).toEqual(['', 'child ran', 'pong']);
  });
});
