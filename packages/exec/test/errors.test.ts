import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExecError, ExecErrorCode, resolveExecutable, run } from '../src/index';
import { env } from './helpers';

let dir: { path: string; cleanup: () => void };
beforeEach(() => {
  dir = tempDir('harness-exec-');
});
afterEach(() => dir.cleanup());

/** A command that would leave a file behind if it ran: proves that nothing ran. */
function touch(): { argv: string[]; ran: () => boolean } {
  const marker = join(dir.path, 'ran');
  return { argv: ['sh', '-c', `touch '${marker}'`], ran: () => existsSync(marker) };
}

async function rejection(promise: Promise<unknown>): Promise<ExecError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExecError);
  return error as ExecError;
}

describe('errors before anything runs', () => {
  it('refuses a NUL byte in argv, naming the element, and runs nothing', async () => {
    const { argv, ran } = touch();
    const error = await rejection(run({ argv: [...argv, 'a\0b'], env }));
    expect(error.code).toBe(ExecErrorCode.invalid_argv);
    expect(error.message).toMatchInlineSnapshot(
      `"argv[3] contains a NUL byte at offset 1; a process argument cannot hold NUL (the OS would cut it there). Remove the NUL."`,
    );
    expect(ran()).toBe(false);
  });

  it('refuses an empty argv', async () => {
    const error = await rejection(run({ argv: [], env }));
    expect(error.code).toBe('invalid_argv');
    expect(error.message).toMatchInlineSnapshot(
      `"argv must be a non-empty array of strings (argv[0] names the program); found an empty or missing argv."`,
    );
  });

  it('refuses a non-string argv element', async () => {
    const error = await rejection(run({ argv: ['echo', 42 as unknown as string], env }));
    expect(error.code).toBe('invalid_argv');
    expect(error.message).toMatchInlineSnapshot(`"argv[1] must be a string; found number."`);
  });

  it('names a missing executable [CP-50]', async () => {
    const error = await rejection(
      run({ argv: ['no-such-program-xyz', '--help'], env: { PATH: '/usr/bin:/bin' } }),
    );
    expect(error.code).toBe(ExecErrorCode.executable_not_found);
    expect(error.message).toMatchInlineSnapshot(
      `"executable "no-such-program-xyz" was not found on PATH (/usr/bin:/bin); expected an installed program. Install it, or add its directory to env.PATH."`,
    );
  });

  it('names a missing executable given by path [CP-50]', async () => {
    const error = await rejection(run({ argv: ['/nonexistent/tool'], env }));
    expect(error.code).toBe('executable_not_found');
    expect(error.message).toMatchInlineSnapshot(
      `"executable "/nonexistent/tool" was not found (looked at /nonexistent/tool); expected an existing executable file. Check the path."`,
    );
  });

  it('refuses a bare program name when the caller gave no PATH', async () => {
    const { argv, ran } = touch();
    const error = await rejection(run({ argv, env: {} }));
    expect(error.code).toBe(ExecErrorCode.no_path);
    expect(error.message).toMatchInlineSnapshot(
      `"cannot resolve executable "sh": env has no PATH and argv[0] has no "/". Nothing is inherited from this process's environment; pass env.PATH or an absolute argv[0]."`,
    );
    expect(ran()).toBe(false);
  });

  it('refuses a cwd that does not exist, and runs nothing', async () => {
    const { argv, ran } = touch();
    const error = await rejection(run({ argv, env, cwd: join(dir.path, 'missing') }));
    expect(error.code).toBe(ExecErrorCode.cwd_not_found);
    expect(error.message).toContain('does not exist; expected an existing directory');
    expect(ran()).toBe(false);
  });

  it('refuses a cwd that is a file', async () => {
    const file = join(dir.path, 'file');
    writeFileSync(file, '');
    const error = await rejection(run({ argv: ['true'], env, cwd: file }));
    expect(error.code).toBe('cwd_not_found');
    expect(error.message).toContain('is not a directory');
  });

  it('refuses a file without execute permission', async () => {
    const file = join(dir.path, 'script');
    writeFileSync(file, '#!/bin/sh\necho hi\n');
    chmodSync(file, 0o644);
    const error = await rejection(run({ argv: [file], env }));
    expect(error.code).toBe(ExecErrorCode.not_executable);
    expect(error.message).toContain('is not executable; expected a file with execute permission');
  });

  it('refuses a non-executable match on PATH rather than running something else', async () => {
    writeFileSync(join(dir.path, 'tool'), '#!/bin/sh\necho hi\n');
    const error = await rejection(run({ argv: ['tool'], env: { PATH: dir.path } }));
    expect(error.code).toBe('not_executable');
  });

  it('refuses a directory as the executable', async () => {
    mkdirSync(join(dir.path, 'sub'));
    const error = await rejection(run({ argv: [join(dir.path, 'sub')], env }));
    expect(error.code).toBe('not_executable');
    expect(error.message).toContain('is a directory');
  });

  it('refuses a bad env key or a NUL in an env value without quoting the value', async () => {
    const bad = await rejection(run({ argv: ['true'], env: { ...env, 'A=B': 'x' } }));
    expect(bad.code).toBe(ExecErrorCode.invalid_env);
    const nul = await rejection(run({ argv: ['true'], env: { ...env, TOKEN: 'sec\0ret-value' } }));
    expect(nul.code).toBe('invalid_env');
    expect(nul.message).toMatchInlineSnapshot(
      `"env.TOKEN contains a NUL byte; an environment value cannot hold NUL. Remove it."`,
    );
    expect(nul.message).not.toContain('ret-value');
  });

  it('refuses bounds out of range', async () => {
    for (const options of [
      { timeoutMs: 0 },
      { timeoutMs: Number.NaN },
      { maxOutputBytes: -1 },
      { maxOutputBytes: 1.5 },
      { killGraceMs: -1 },
      { onExceed: 'drop' as 'fail' },
      { stdin: 42 as unknown as string },
    ]) {
      const error = await rejection(run({ argv: ['true'], env, ...options }));
      expect(error.code).toBe(ExecErrorCode.invalid_option);
    }
  });

  it('refuses an already aborted signal, and runs nothing', async () => {
    const { argv, ran } = touch();
    const error = await rejection(run({ argv, env, signal: AbortSignal.abort() }));
    expect(error.code).toBe(ExecErrorCode.aborted);
    expect(ran()).toBe(false);
  });

  it('reports an argument the kernel refuses (E2BIG) as SPAWN_FAILED with the cause', async () => {
    // Linux caps one argument at 128 KiB (MAX_ARG_STRLEN); the check cannot be done before exec.
    const error = await rejection(run({ argv: ['true', 'x'.repeat(200_000)], env }));
    expect(error.code).toBe(ExecErrorCode.spawn_failed);
    expect(error.message).toContain('E2BIG');
    expect(error.cause).toBeDefined();
  });
});

describe('resolveExecutable', () => {
  it("resolves against the caller's PATH, never this process's", () => {
    expect(resolveExecutable('sh', '/usr/bin:/bin')).toMatch(/\/sh$/);
    expect(() => resolveExecutable('sh', dir.path)).toThrow(
      expect.objectContaining({ code: 'executable_not_found' }),
    );
  });

  it('skips empty PATH entries, so a file in cwd does not shadow a program', () => {
    const file = join(dir.path, 'tool');
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o755);
    expect(() => resolveExecutable('tool', ':', dir.path)).toThrow(
      expect.objectContaining({ code: 'executable_not_found' }),
    );
    expect(resolveExecutable('./tool', undefined, dir.path)).toBe(file);
    expect(resolveExecutable('tool', dir.path)).toBe(file);
  });
});
