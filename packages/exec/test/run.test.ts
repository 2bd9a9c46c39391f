// biome-ignore-all lint/suspicious/noTemplateCurlyInString: literal ${VAR} text is what these tests send to check that nothing expands it
import { chmodSync, existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, run, truncationMarker } from '../src/index';
import { alive, env, node, printArgv } from './helpers';

let dir: { path: string; cleanup: () => void };
beforeEach(() => {
  dir = tempDir('harness-exec-');
});
afterEach(() => dir.cleanup());

describe('exit and signal reporting', () => {
  it('reports exit code 0 with stdout as ok', async () => {
    const r = await run({ argv: ['sh', '-c', 'printf hello'], env });
    expect(r).toMatchObject({
      ok: true,
      outcome: 'exited',
      exitCode: 0,
      signal: null,
      stdout: 'hello',
      stderr: '',
    });
    expect(r.stdoutBytes).toEqual({ seen: 5, kept: 5, dropped: 0 });
    expect(r.file).toMatch(/\/sh$/);
    expect(r.argv).toEqual(['sh', '-c', 'printf hello']);
    expect(r.durationMs).toBeGreaterThan(0);
  });

  it('reports a nonzero exit together with stderr [CP-49]', async () => {
    const r = await run({ argv: ['sh', '-c', 'echo partial; echo "boom: bad input" >&2; exit 3'], env });
    expect(r).toMatchObject({
      ok: false,
      outcome: 'exited',
      exitCode: 3,
      stdout: 'partial\n',
      stderr: 'boom: bad input\n',
    });
  });

  it('reports a child killed by a signal it did not get from us as signaled', async () => {
    const r = await run({ argv: ['sh', '-c', 'kill -KILL $$'], env });
    expect(r).toMatchObject({
      ok: false,
      outcome: 'signaled',
      exitCode: null,
      signal: 'SIGKILL',
      timedOut: false,
    });
  });

  it('counts bytes, not characters, and decodes UTF-8', async () => {
    const r = await run({
      argv: [node, '-e', 'process.stdout.write("é€😀"); process.stderr.write("ü")'],
      env: {},
    });
    expect(r.stdout).toBe('é€😀');
    expect(r.stdoutBytes.seen).toBe(2 + 3 + 4);
    expect(r.stderrBytes).toEqual({ seen: 2, kept: 2, dropped: 0 });
    expect(r.outputBytes).toEqual({ seen: 11, kept: 11, dropped: 0 });
  });

  it('keeps argv[0] as written (programs that look at their name see it)', async () => {
    const r = await run({ argv: ['node', '-e', 'process.stdout.write(process.argv0)'], env });
    expect(r.stdout).toBe('node');
  });

  it('runs in the given cwd, and resolves a relative argv[0] against it', async () => {
    const script = join(dir.path, 'tool');
    writeFileSync(script, '#!/bin/sh\npwd\n');
    chmodSync(script, 0o755);
    const r = await run({ argv: ['./tool'], env, cwd: dir.path });
    expect(r.stdout.trim()).toBe(realpathSync(dir.path));
  });
});

describe('stdin', () => {
  it('writes a string to stdin and closes it', async () => {
    const r = await run({ argv: ['cat'], env, stdin: 'line 1\nline 2\n' });
    expect(r.stdout).toBe('line 1\nline 2\n');
  });

  it('writes bytes to stdin unchanged', async () => {
    const bytes = new Uint8Array([0, 1, 2, 255, 10]);
    const r = await run({
      argv: [node, '-e', 'process.stdin.on("data", (c) => process.stdout.write(c.toString("hex")))'],
      env: {},
      stdin: bytes,
    });
    expect(r.stdout).toBe('000102ff0a');
  });

  it('gives no stdin when none is passed: the child reads EOF at once and never inherits ours', async () => {
    const r = await run({ argv: ['cat'], env, timeoutMs: 5_000 });
    expect(r).toMatchObject({ ok: true, stdout: '', timedOut: false });
  });

  it('survives a child that exits without reading a large stdin', async () => {
    const r = await run({ argv: ['true'], env, stdin: 'x'.repeat(4 * 1024 * 1024) });
    expect(r).toMatchObject({ ok: true, exitCode: 0 });
  });
});

describe('argv reaches the program intact, never through a shell [CP-30..CP-34]', () => {
  const hostile = [
    '; rm -rf /',
    '| cat /etc/passwd',
    '$(whoami)',
    '`whoami`',
    '&& curl http://example.invalid',
    'a b c',
    'line1\nline2',
    '"double" \'single\'',
    'back\\slash',
    '*',
    '${HOME}',
    '{{filter}}',
    '--not-a-flag',
    '',
    ' ',
    '>out.txt',
  ];

  it('each hostile value stays exactly one argument [CP-31, CP-32]', async () => {
    const r = await run({ argv: [node, '-e', printArgv, ...hostile], env: {}, cwd: dir.path });
    expect(JSON.parse(r.stdout)).toEqual(hostile);
    expect(existsSync(join(dir.path, 'out.txt'))).toBe(false);
  });

  it('a value is not interpreted by a shell, even for a program that would take it as one word [CP-30]', async () => {
    const r = await run({ argv: ['echo', '$(whoami)', '`id`', '*', '; echo injected'], env, cwd: dir.path });
    expect(r.stdout).toBe('$(whoami) `id` * ; echo injected\n');
  });

  it('a hostile value reaches a real process byte for byte [CP-33]', async () => {
    const value = 'ünï\tcode \u0001\u007f 😀 ; rm -rf / $(whoami)';
    const r = await run({
      argv: [node, '-e', 'process.stdout.write(Buffer.from(process.argv[1]).toString("hex"))', value],
      env: {},
    });
    expect(r.stdout).toBe(Buffer.from(value).toString('hex'));
  });

  it('placeholder syntax inside a value reaches the process as literal text [CP-34]', async () => {
    const r = await run({ argv: ['printf', '%s', '{{credential.gh-token}} {credential.gh-token}'], env });
    expect(r.stdout).toBe('{{credential.gh-token}} {credential.gh-token}');
  });
});

describe('environment: exactly what the caller passes', () => {
  it('does not pass a variable set in process.env to the child', async () => {
    process.env.HARNESS_EXEC_TEST_SECRET = 'parent-only';
    try {
      const r = await run({
        argv: [node, '-e', 'process.stdout.write(JSON.stringify(process.env))'],
        env: { ONLY: 'this' },
      });
      expect(JSON.parse(r.stdout)).toEqual({ ONLY: 'this' });
    } finally {
      delete process.env.HARNESS_EXEC_TEST_SECRET;
    }
  });

  it('passes an empty environment when none is given', async () => {
    const r = await run({ argv: ['/usr/bin/env'] });
    expect(r.stdout).toBe('');
  });

  it('never expands ${VAR} in env values or argv', async () => {
    const r = await run({
      argv: [node, '-e', 'process.stdout.write(process.env.A + "|" + process.argv[1])', '${B}'],
      env: { A: '${HOME}:$PATH', B: 'expanded' },
    });
    expect(r.stdout).toBe('${HOME}:$PATH|${B}');
  });

  it('treats an undefined env value as absent', async () => {
    const r = await run({
      argv: [node, '-e', 'process.stdout.write(JSON.stringify(Object.keys(process.env)))'],
      env: { A: '1', B: undefined },
    });
    expect(JSON.parse(r.stdout)).toEqual(['A']);
  });

  it("resolves argv[0] against the PATH the caller gives, not this process's", async () => {
    const script = join(dir.path, 'only-here');
    writeFileSync(script, '#!/bin/sh\necho found\n');
    chmodSync(script, 0o755);
    const r = await run({ argv: ['only-here'], env: { PATH: `${dir.path}:/usr/bin:/bin` } });
    expect(r.stdout).toBe('found\n');
    await expect(run({ argv: ['true'], env: { PATH: dir.path } })).rejects.toMatchObject({
      code: 'executable_not_found',
    });
  });

  it('a credential passed in env reaches the child but not its argv (ps cannot show it) [CP-39]', async () => {
    const secret = 'ghp_exampleSecretValue123';
    const r = await run({
      argv: ['sh', '-c', 'tr "\\0" " " < /proc/$$/cmdline; printf "\\n%s" "$GH_TOKEN"'],
      env: { ...env, GH_TOKEN: secret },
    });
    const cut = r.stdout.lastIndexOf('\n');
    const cmdline = r.stdout.slice(0, cut);
    const seen = r.stdout.slice(cut + 1);
    expect(seen).toBe(secret);
    expect(cmdline).toContain('/proc/$$/cmdline');
    expect(cmdline).not.toContain(secret);
  });
});

describe('bounds: defaults', () => {
  it('a run with no timeout is bounded by the built-in 30 s [CP-45]', async () => {
    const r = await run({ argv: ['true'], env });
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    expect(r.limits.timeoutMs).toBe(30_000);
  });

  it('a run with no ceiling is bounded by the built-in 10 MiB, failing past it [CP-46]', async () => {
    const r = await run({ argv: ['head', '-c', String(DEFAULT_MAX_OUTPUT_BYTES + 1), '/dev/zero'], env });
    expect(DEFAULT_MAX_OUTPUT_BYTES).toBe(10 * 1024 * 1024);
    expect(r.limits).toMatchObject({ maxOutputBytes: 10 * 1024 * 1024, onExceed: 'fail' });
    expect(r).toMatchObject({ ok: false, outcome: 'output_exceeded', outputExceeded: true });
    expect(r.outputBytes.kept).toBeLessThanOrEqual(DEFAULT_MAX_OUTPUT_BYTES);
  });
});

describe('bounds: timeout', () => {
  it('a command that runs past its timeout is killed and the call fails [CP-47]', async () => {
    const r = await run({
      argv: ['sh', '-c', 'echo started; sleep 30'],
      env,
      timeoutMs: 200,
      killGraceMs: 500,
    });
    expect(r).toMatchObject({
      ok: false,
      outcome: 'timed_out',
      timedOut: true,
      cancelled: false,
      stdout: 'started\n',
    });
    expect(r.signal).toBe('SIGTERM');
    expect(r.durationMs).toBeLessThan(5_000);
    expect(alive(r.pid)).toBe(false);
  });
});

describe('bounds: output ceiling (stdout + stderr combined)', () => {
  it('output past the ceiling fails the command (default onExceed "fail") and kills it [CP-48]', async () => {
    const r = await run({ argv: ['yes'], env, maxOutputBytes: 1000, killGraceMs: 500 });
    expect(r).toMatchObject({ ok: false, outcome: 'output_exceeded', outputExceeded: true, timedOut: false });
    expect(r.outputBytes.seen).toBeGreaterThan(1000);
    expect(r.outputBytes.kept).toBeLessThanOrEqual(1000);
    expect(alive(r.pid)).toBe(false);
  });

  it('counts stdout and stderr together against one ceiling', async () => {
    const r = await run({
      argv: [node, '-e', 'process.stdout.write("o".repeat(600)); process.stderr.write("e".repeat(600))'],
      env: {},
      maxOutputBytes: 1000,
    });
    expect(r.outputExceeded).toBe(true);
    expect(r.outcome).toBe('output_exceeded');
  });

  it('accepts output of exactly the ceiling', async () => {
    const r = await run({ argv: ['head', '-c', '1000', '/dev/zero'], env, maxOutputBytes: 1000 });
    expect(r).toMatchObject({ ok: true, outputExceeded: false });
    expect(r.stdoutBytes).toEqual({ seen: 1000, kept: 1000, dropped: 0 });
  });

  it('under "truncate" keeps head and tail with a marker, and lets the process finish', async () => {
    const done = join(dir.path, 'done');
    const script = `process.stdout.write("A".repeat(1000) + "B".repeat(1000) + "C".repeat(1000)); require("fs").writeFileSync(${JSON.stringify(done)}, "")`;
    const r = await run({ argv: [node, '-e', script], env: {}, maxOutputBytes: 1000, onExceed: 'truncate' });
    expect(r).toMatchObject({ ok: true, outcome: 'exited', exitCode: 0, outputExceeded: true });
    expect(r.stdout).toBe(`${'A'.repeat(500)}${truncationMarker(2000)}${'C'.repeat(500)}`);
    expect(r.stdout).toContain('\n[... 2000 bytes dropped ...]\n');
    expect(r.stdoutBytes).toEqual({ seen: 3000, kept: 1000, dropped: 2000 });
    expect(existsSync(done)).toBe(true);
  });

  it('under "truncate" reads everything and keeps the end of a long failing build', async () => {
    const r = await run({
      argv: [
        'sh',
        '-c',
        'head -c 20000000 /dev/zero | tr "\\0" x; echo; echo "error: build failed" >&2; exit 2',
      ],
      env,
      maxOutputBytes: 64 * 1024,
      onExceed: 'truncate',
    });
    expect(r).toMatchObject({ ok: false, outcome: 'exited', exitCode: 2, outputExceeded: true });
    expect(r.stderr).toBe('error: build failed\n');
    expect(r.stdoutBytes.seen).toBe(20_000_001);
    expect(r.outputBytes.kept).toBeLessThanOrEqual(64 * 1024);
    expect(r.stdout.endsWith('x\n')).toBe(true);
  });

  it('cuts on UTF-8 boundaries and counts the cut bytes as dropped', async () => {
    const r = await run({
      argv: [node, '-e', 'process.stdout.write("€".repeat(1000))'],
      env: {},
      maxOutputBytes: 1001,
      onExceed: 'truncate',
    });
    expect(r.stdout).not.toContain('\uFFFD');
    expect(r.stdoutBytes.kept % 3).toBe(0);
    expect(r.stdoutBytes.seen).toBe(3000);
    expect(r.stdout).toContain(truncationMarker(r.stdoutBytes.dropped));
  });
});

describe('onOutputBytes: output counted while the command runs', () => {
  it('reports the bytes of both streams so far after each chunk, ending at the total seen', async () => {
    const reports: number[] = [];
    // The child's 50 ms pause is what is tested: two writes that arrive as two chunks.
    const r = await run({
      argv: [
        node,
        '-e',
        'process.stdout.write("o".repeat(300)); setTimeout(() => process.stderr.write("e".repeat(200)), 50)',
      ],
      env: {},
      onOutputBytes: (seen) => reports.push(seen),
    });
    expect(r.ok).toBe(true);
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports).toEqual([...reports].sort((a, b) => a - b));
    expect(reports.at(-1)).toBe(500);
    expect(r.outputBytes.seen).toBe(500);
  });

  it('counts bytes past the ceiling too, and a throwing observer changes nothing', async () => {
    let last = 0;
    const r = await run({
      argv: ['head', '-c', '3000', '/dev/zero'],
      env,
      maxOutputBytes: 1000,
      onExceed: 'truncate',
      onOutputBytes: (seen) => {
        last = seen;
        throw new Error('observer failed');
      },
    });
    expect(r).toMatchObject({ outcome: 'exited', exitCode: 0, outputExceeded: true });
    expect(last).toBe(3000);
  });
});
