// A commit that fails before it is made does not read "may have landed": git.commit's exit codes 1
// (nothing to commit) and 128 (refused, e.g. no identity) are declared unchanged_exit_codes. Real
// git, the real CLI.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { needs } from '@harness/test-utils';
import { afterAll, expect, it } from 'vitest';
import { runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

needs('git').describe('a git.commit that made no commit', () => {
  const repo = join(box.root, 'repo');
  mkdirSync(join(repo, '.harness'), { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeFileSync(
    join(repo, '.harness', 'workspace.yaml'),
    `command_packs:
  - standard: git
    cwd: ..
    permission_overrides: { commit: open }
agents:
  - id: me
    grants: [git.commit]
`,
  );
  const commit = async () => {
    const r = await runCli(
      [
        'call',
        'run_command',
        JSON.stringify({ command: 'git.commit', args: { message: 'x' } }),
        '--workspace',
        join(repo, '.harness', 'workspace.yaml'),
        '--instance',
        box.instance,
      ],
      { home: box.home },
    );
    return {
      ...r,
      result: JSON.parse(r.stdout) as {
        outcome: { mayHaveLanded: boolean };
        entry: { value: { exitCode: number } };
      },
    };
  };

  it.each([
    [
      'with nothing staged (exit 1)',
      1,
      () => {
        mkdirSync(box.home, { recursive: true });
        writeFileSync(join(box.home, '.gitconfig'), '[user]\n\tname = Ada\n\temail = ada@example.com\n');
      },
    ],
    [
      'with no identity of the person’s anywhere (exit 128)',
      128,
      () => {
        rmSync(join(box.home, '.gitconfig'));
        writeFileSync(join(repo, 'a.txt'), 'a\n');
        execFileSync('git', ['add', 'a.txt'], { cwd: repo });
      },
    ],
  ])('answers %s as not landed, and its text says nothing of landing', async (_, exit, stage) => {
    stage();
    const r = await commit();
    expect(r.code).toBe(1);
    expect(r.result.entry.value.exitCode).toBe(exit);
    expect(r.result.outcome.mayHaveLanded).toBe(false);
    expect(r.stderr).not.toContain('may have landed');
  });
});
