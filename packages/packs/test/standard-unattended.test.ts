// Which standard writes are confined as declared — what `harness init` lists in
// `unattended_when_confined` — against the table of docs/standard-packs.md.
import { describe, expect, it } from 'vitest';
import { describeStandardPacks } from '../src/index';

describe('standard writes that may run unattended', () => {
  it('are the project packs’ test, lint, check and build commands and make.run, and never git’s writes nor a network command', async () => {
    const packs = await describeStandardPacks({ probe: false });
    const commands = packs.flatMap((p) => p.commands);
    expect(commands.filter((c) => c.confinedWrite).map((c) => c.id)).toEqual([
      'make.run',
      'node.test',
      'node.run',
      'node.exec_bin',
      'python.pytest',
      'python.ruff',
      'python.mypy',
      'python.run_module',
      'rust.check',
      'rust.build',
      'rust.test',
      'rust.clippy',
      'rust.fmt_check',
    ]);
    const asks = commands.filter((c) => c.effect === 'write' && !c.confinedWrite).map((c) => c.id);
    expect(asks).toEqual([
      'gh.pr_comment',
      'gh.pr_create',
      'git.add',
      'git.commit',
      'git.switch_create',
      'git.restore',
      'git.push',
      'git.reset_hard',
      'git.clean',
      'node.install',
    ]);
  });
});
