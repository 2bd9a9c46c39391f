import { existsSync, mkdirSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createSpawner, ExecErrorCode, resolveProgram, run, type Spawner } from '../src/index';
import { programHashReads } from '../src/internal';
import { spawnerUp } from './helpers';

// A program resolved once (its path, its file's identity, its bytes' hash) is the program that
// starts: no second PATH search, and a file rewritten in between is refused. Real files, real runs.

const spawners: Spawner[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const s of spawners.splice(0)) await s.close();
  for (const c of cleanups.splice(0)) c();
});

function scratch(): string {
  const dir = tempDir('exec-program-');
  cleanups.push(dir.cleanup);
  return dir.path;
}

/** A directory with an executable `tool` script that prints `word` (and touches `marker` when given). */
function toolIn(dir: string, word: string, marker?: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'tool');
  writeFileSync(file, `#!/bin/sh\n${marker ? `: > '${marker}'\n` : ''}echo ${word}\n`, { mode: 0o755 });
  return file;
}

/** A new spawner, up (closed after the test). */
async function upSpawner(): Promise<Spawner> {
  const s = createSpawner();
  spawners.push(s);
  await spawnerUp(s);
  return s;
}

describe('a program resolved once', () => {
  it('hashes the file it resolved and reads it again only when its identity changes [SEC-25]', () => {
    const root = scratch();
    const file = toolIn(join(root, 'bin'), 'one');
    const first = resolveProgram('tool', join(root, 'bin'), root);
    const reads = programHashReads();
    const again = resolveProgram('tool', join(root, 'bin'), root);
    expect(again).toEqual(first);
    expect(programHashReads()).toBe(reads);
    expect(first.file).toBe(file);
    expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Same size, mtime set back: the change time still moves, so it is hashed anew.
    writeFileSync(file, '#!/bin/sh\necho two\n');
    utimesSync(file, 1, 1);
    const changed = resolveProgram('tool', join(root, 'bin'), root);
    expect(changed.sha256).not.toBe(first.sha256);
    expect(programHashReads()).toBe(reads + 1);
  });

  it('starts the file it was given, not one an earlier PATH directory gained since [SEC-25]', async () => {
    const root = scratch();
    toolIn(join(root, 'late'), 'approved');
    const path = `${join(root, 'early')}:${join(root, 'late')}`;
    const program = resolveProgram('tool', path, root);
    toolIn(join(root, 'early'), 'planted');
    const given = await run({ argv: ['tool'], env: { PATH: path }, cwd: root, program });
    expect(given.stdout).toBe('approved\n');
    // The run that resolves for itself searches PATH again and starts the planted one.
    const searched = await run({ argv: ['tool'], env: { PATH: path }, cwd: root });
    expect(searched.stdout).toBe('planted\n');
  });

  for (const how of ['directly', 'through a spawner'] as const) {
    it(`refuses with program_changed, and starts nothing, when the file was rewritten after it was hashed (${how}) [SEC-25]`, async () => {
      const root = scratch();
      const marker = join(root, 'ran');
      const file = toolIn(join(root, 'bin'), 'approved');
      const program = resolveProgram('tool', join(root, 'bin'), root);
      toolIn(join(root, 'bin'), 'rewritten', marker);
      const spawner = how === 'directly' ? undefined : await upSpawner();
      const options = { argv: ['tool'], env: { PATH: join(root, 'bin') }, cwd: root };
      await expect(run({ ...options, program, ...(spawner ? { spawner } : {}) })).rejects.toMatchObject({
        code: ExecErrorCode.program_changed,
      });
      expect(existsSync(marker)).toBe(false);
      // Without the identity check (a run that resolves for itself), the rewritten file runs.
      const unchecked = await run({ ...options, ...(spawner ? { spawner } : {}) });
      expect(unchecked.stdout).toBe('rewritten\n');
      expect(existsSync(marker)).toBe(true);
      expect(unchecked.file).toBe(file);
    });
  }

  it('refuses a file replaced by another at the same path (a rename over it) [SEC-25]', async () => {
    const root = scratch();
    toolIn(join(root, 'bin'), 'approved');
    const program = resolveProgram('tool', join(root, 'bin'), root);
    const other = toolIn(join(root, 'other'), 'swapped');
    renameSync(other, program.file);
    await expect(
      run({ argv: ['tool'], env: { PATH: join(root, 'bin') }, cwd: root, program }),
    ).rejects.toMatchObject({ code: ExecErrorCode.program_changed });
  });

  it('refuses a program path that is not absolute, naming what it expected', async () => {
    const root = scratch();
    const program = resolveProgram('tool', toolIn(join(root, 'bin'), 'x').replace(/\/tool$/, ''), root);
    await expect(
      run({ argv: ['tool'], env: {}, cwd: root, program: { ...program, file: 'bin/tool' } }),
    ).rejects.toMatchObject({
      code: ExecErrorCode.invalid_option,
      message: 'program.file must be the absolute path resolveProgram returned; found "bin/tool".',
    });
  });
});
