// Adversarial review of bounded execution: children that flood, lie about their output, hold pipes,
// multiply, or try to be found through a relative PATH. Real processes throughout.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, until } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { ExecErrorCode, resolveExecutable, run } from '../src/index';
import { alive, env, node, pids } from './helpers';

const dir = tempDir('exec-adv-');
afterAll(() => dir.cleanup());

const js = (code: string, extra: Partial<Parameters<typeof run>[0]> = {}) =>
  run({ argv: [node, '-e', code], env, timeoutMs: 5_000, killGraceMs: 200, ...extra });

describe('adversarial: output bounds', () => {
  it('a stdout and stderr flood at once is cut at the ceiling, killed, and held in bounded memory', async () => {
    const r = await js(
      'const b = Buffer.alloc(65536, 120); const w = () => { process.stdout.write(b); process.stderr.write(b); setImmediate(w); }; w();',
      { maxOutputBytes: 64 * 1024 },
    );
    expect(r.outcome).toBe('output_exceeded');
    expect(r.outputBytes.kept).toBeLessThanOrEqual(64 * 1024);
    expect(r.stdout).toContain('bytes dropped');
  });

  it('binary and invalid UTF-8 come back as text with replacement characters, never a throw', async () => {
    const r = await js('process.stdout.write(Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xe2, 0x82]))');
    expect(r.ok).toBe(true);
    expect(r.stdout).toContain('\ufffd');
    expect(r.stdoutBytes.seen).toBe(7);
  });

  it('one very long line without a newline is bounded like any output', async () => {
    const r = await js('process.stdout.write("x".repeat(5 * 1024 * 1024))', { maxOutputBytes: 1024 });
    expect(r.outcome).toBe('output_exceeded');
    expect(r.stdout.length).toBeLessThan(1200);
  });
});

describe('adversarial: processes that outlive their welcome', () => {
  it('a child that closes stdout and stderr but keeps running is killed at the timeout', async () => {
    const r = await js(
      'require("fs").closeSync(1); require("fs").closeSync(2); setInterval(() => {}, 1000)',
      {
        timeoutMs: 300,
      },
    );
    expect(r.outcome).toBe('timed_out');
    expect(alive(r.pid)).toBe(false);
  });

  it('a fork bomb (bounded here) is ended with its whole group at the timeout', async () => {
    const r = await run({
      argv: ['sh', '-c', 'for i in 1 2 3 4 5 6 7 8; do (sleep 30 & echo $!; wait) & done; echo $$; wait'],
      env,
      timeoutMs: 400,
      killGraceMs: 100,
    });
    expect(r.outcome).toBe('timed_out');
    const started = pids(r.stdout);
    expect(started.length).toBeGreaterThanOrEqual(2);
    for (const pid of started) expect(alive(pid), `pid ${pid}`).toBe(false);
  });

  it('a grandchild left running after the child exits is killed (strayKilled), not left as an orphan', async () => {
    const r = await run({
      argv: ['sh', '-c', 'sleep 30 >/dev/null 2>&1 & echo $!'],
      env,
      timeoutMs: 5_000,
      killGraceMs: 100,
    });
    const [orphan] = pids(r.stdout);
    expect(r.strayKilled).toBe(true);
    expect(alive(orphan as number)).toBe(false);
  });
});

describe('adversarial: resolving argv[0]', () => {
  it('a relative PATH entry ("." or "bin") never finds a program in the working directory', () => {
    const cwd = join(dir.path, 'work');
    mkdirSync(join(cwd, 'bin'), { recursive: true });
    for (const file of [join(cwd, 'ls'), join(cwd, 'bin', 'ls')]) {
      writeFileSync(file, '#!/bin/sh\necho hijacked\n');
      chmodSync(file, 0o755);
    }
    const system = resolveExecutable('ls', '/usr/bin:/bin', cwd);
    expect(resolveExecutable('ls', `.:${'/usr/bin:/bin'}`, cwd)).toBe(system);
    expect(resolveExecutable('ls', `bin:/usr/bin:/bin`, cwd)).toBe(system);
    expect(() => resolveExecutable('ls', '.:bin', cwd)).toThrow(
      expect.objectContaining({ code: ExecErrorCode.executable_not_found }),
    );
  });

  it('the child never sees this process’s environment', async () => {
    process.env.EXEC_ADV_PARENT = 'parent-secret';
    try {
      const r = await js('process.stdout.write(JSON.stringify(process.env))');
      expect(JSON.parse(r.stdout)).toEqual(env);
    } finally {
      delete process.env.EXEC_ADV_PARENT;
    }
  });
});

describe('adversarial: a descendant that leaves the group with setsid and keeps stdout open [SEC-5]', () => {
  // The escaped process is in another session: no group signal reaches it. Each test kills it by
  // the pid it wrote, so nothing outlives the test.
  const escapedPids: number[] = [];
  afterAll(() => {
    for (const pid of escapedPids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  // The command goes on only once the escape has happened (the escaped shell wrote its pid).
  const escapeCommand = (pidFile: string) =>
    `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 60' & while [ ! -e ${pidFile} ]; do sleep 0.01; done;`;
  // The escaped shell writes its pid once it runs, which may be after the run returned.
  const escapedPid = async (pidFile: string): Promise<number> => {
    await until(() => existsSync(pidFile), 'the escaped shell to write its pid');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    escapedPids.push(pid);
    return pid;
  };

  it('returns at the timeout plus the kill grace while the child itself hangs, and reports the escape', async () => {
    const pidFile = join(dir.path, 'escaped-hang.pid');
    const r = await run({
      argv: ['sh', '-c', `${escapeCommand(pidFile)} echo started; sleep 60`],
      env,
      timeoutMs: 1_000,
      killGraceMs: 200,
    });
    expect(r).toMatchObject({ ok: false, outcome: 'timed_out', escaped: true, stdout: 'started\n' });
    expect(r.durationMs).toBeGreaterThanOrEqual(1_000);
    // The bound: the timeout, the kill grace, the wait for a killed group (2 s) and the pipe margin,
    // plus slack for a loaded machine; a hang would take the child's 300 s.
    expect(r.durationMs).toBeLessThan(1_000 + 200 + 2_000 + 200 + 2_000);
    // The escaped process is still alive (nothing can reach it), yet the run is over.
    expect(alive(await escapedPid(pidFile))).toBe(true);
  });

  it('returns within the kill grace when the child exits but the escaped process holds the pipe', async () => {
    const pidFile = join(dir.path, 'escaped-exit.pid');
    const r = await run({
      argv: ['sh', '-c', `${escapeCommand(pidFile)} echo done`],
      env,
      timeoutMs: 10_000,
      killGraceMs: 200,
    });
    await escapedPid(pidFile);
    expect(r).toMatchObject({ ok: false, outcome: 'exited', exitCode: 0, escaped: true, stdout: 'done\n' });
    expect(r.durationMs).toBeLessThan(200 + 1_000);
  });

  it('stops reading what the escaped process writes after the run ended', async () => {
    const pidFile = join(dir.path, 'escaped-write.pid');
    const go = join(dir.path, 'escaped-write.go');
    const wrote = join(dir.path, 'escaped-write.wrote');
    // The child waits until the escape has happened (the pid file) before it ends. The escaped shell
    // writes "late" only once the run has returned (the test creates `go`), then says it did; it
    // ignores SIGPIPE so that it gets that far even when nobody reads any more.
    const r = await run({
      argv: [
        'sh',
        '-c',
        `setsid sh -c 'trap "" PIPE; echo $$ > ${pidFile}; while [ ! -e ${go} ]; do sleep 0.05; done; echo late; touch ${wrote}; exec sleep 60' & while [ ! -e ${pidFile} ]; do sleep 0.01; done; echo early`,
      ],
      env,
      timeoutMs: 10_000,
      killGraceMs: 100,
    });
    await escapedPid(pidFile);
    expect(r.stdout).toBe('early\n');
    writeFileSync(go, '');
    await until(() => existsSync(wrote), 'the escaped shell to write after the run ended');
    expect(r.stdout).toBe('early\n');
  });

  it('reports no escape for a child that only forks inside its group', async () => {
    const r = await run({ argv: ['sh', '-c', 'echo ok'], env, timeoutMs: 5_000, killGraceMs: 100 });
    expect(r).toMatchObject({ ok: true, escaped: false });
  });
});
