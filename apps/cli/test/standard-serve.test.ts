// The README's coding-agent workspace, built from standard packs with no argv written, served by
// `harness serve` to the real MCP SDK client on a real repository: the client reads its status, diff
// and history and searches it; a commit waits for a person.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { needs, repoRoot } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectStdio, runCli, sandbox, structured } from './helpers';

/** The workspace block of the README's "A coding agent's workspace, from standard packs". */
function readmeWorkspace(): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const block = /```yaml\n# \.harness\/workspace\.yaml\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no .harness/workspace.yaml block');
  return block;
}

needs('git').describe("the README's standard-pack workspace through harness serve", () => {
  const box = sandbox();
  const repo = join(box.root, 'project');
  const workspace = join(repo, '.harness', 'workspace.yaml');
  let session: Awaited<ReturnType<typeof connectStdio>>;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Ann', '-c', 'user.email=ann@example.com', ...args], {
      cwd: repo,
      env: { PATH: process.env.PATH ?? '', HOME: box.home, GIT_CONFIG_NOSYSTEM: '1' },
      encoding: 'utf8',
    });

  beforeAll(async () => {
    mkdirSync(join(repo, '.harness'), { recursive: true });
    mkdirSync(box.home, { recursive: true });
    writeFileSync(
      join(repo, 'Makefile'),
      'build:\n\t@echo built\ntest:\n\t@echo tested\nlint:\n\t@echo linted\n',
    );
    writeFileSync(join(repo, 'notes.txt'), 'alpha\nneedle in a haystack\n');
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'first commit');
    writeFileSync(join(repo, 'notes.txt'), 'alpha\nneedle in a haystack\nomega\n');
    writeFileSync(workspace, readmeWorkspace());
    session = await connectStdio(
      ['--workspace', workspace, '--instance', box.instance, '--agent', 'coder'],
      box.home,
    );
  }, 60_000);
  afterAll(async () => {
    await session?.close();
    box.cleanup();
  });

  const read = async (command: string, args: Record<string, unknown> = {}) =>
    structured(await session.client.callTool({ name: 'run_read_command', arguments: { command, args } }));

  it('passes packs check as the README says', async () => {
    const r = await runCli(['packs', 'check', workspace], { home: box.home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`ok: ${workspace}: 4 pack(s), 1 agent(s)`);
  });

  it('lists the standard commands the agent holds, with no argv written [CP-76]', async () => {
    const listed = structured(await session.client.callTool({ name: 'list_commands', arguments: {} }));
    const names = (listed.entries as { name: string }[]).map((e) => e.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'git.status',
        'git.diff',
        'git.log',
        'git.commit',
        'search.grep',
        'files.read',
        'make.run',
      ]),
    );
    expect(names).not.toContain('git.push');
  });

  it("reads the repository's status, diff and history", async () => {
    const status = await read('git.status');
    expect(status).toMatchObject({ status: 'executed', outcome: { ok: true } });
    expect(JSON.stringify(status)).toContain('notes.txt');
    const diff = JSON.stringify(await read('git.diff'));
    expect(diff).toContain('+omega');
    const log = JSON.stringify(await read('git.log'));
    expect(log).toContain('first commit');
  });

  it('searches it', async () => {
    const found = JSON.stringify(await read('search.grep', { pattern: 'needle' }));
    expect(found).toContain('needle in a haystack');
  });

  it('holds a commit for a person’s approval', async () => {
    git('add', 'notes.txt');
    const held = structured(
      await session.client.callTool({
        name: 'run_command',
        arguments: { command: 'git.commit', args: { message: 'add omega' } },
      }),
    );
    expect(JSON.stringify(held)).toContain('approval');
    expect(git('log', '--oneline')).not.toContain('add omega');
  });

  it('lists the held commit by the line its pack writes for people, with the staged file from its preview; show adds the argv', async () => {
    const listed = await runCli(['approvals', 'list', '--instance', box.instance], { home: box.home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('  runs  git commit --message "add omega"\n');
    // The guard's shell is one flag away, not in the listing.
    expect(listed.stdout).not.toContain('sh -c');
    expect(listed.stdout).toMatch(/ {2}preview git\.staged_diff\n {4}\| {2}notes\.txt \| 1 \+\n/);
    const id = /^(apr-\S+) {2}pending {2}git\.commit/m.exec(listed.stdout)?.[1] ?? '';
    const shown = await runCli(['approvals', 'show', id, '--instance', box.instance], { home: box.home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('  runs  git commit --message "add omega"\n');
    expect(shown.stdout).toMatch(
      / {2}argv {2}sh -c .+ git commit --no-verify --no-gpg-sign "--message=add omega"\n/,
    );
    expect(shown.stdout).toContain('+omega');
  });

  it('escapes a message that would close the quotes or start a new line in the runs line', async () => {
    await session.client.callTool({
      name: 'run_command',
      arguments: { command: 'git.commit', args: { message: 'x" --amend\nrm -rf /' } },
    });
    const listed = await runCli(['approvals', 'list', '--instance', box.instance], { home: box.home });
    expect(listed.stdout).toContain('  runs  git commit --message "x\\" --amend\\nrm -rf /"\n');
  });
});
