// Adversarial review of bounded execution: children that flood, lie about their output, hold pipes,
// multiply, or try to be found through a relative PATH. Real processes throughout.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
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
    expect(r.outcome).toBe('timeout');
    expect(alive(r.pid)).toBe(false);
  });

  it('a fork bomb (bounded here) is ended with its whole group at the timeout', async () => {
    const r = await run({
      argv: ['sh', '-c', 'for i in 1 2 3 4 5 6 7 8; do (sleep 30 & echo $!; wait) & done; echo $$; wait'],
      env,
      timeoutMs: 400,
      killGraceMs: 100,
    });
    expect(r.outcome).toBe('timeout');
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
      expect.objectContaining({ code: ExecErrorCode.EXECUTABLE_NOT_FOUND }),
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
