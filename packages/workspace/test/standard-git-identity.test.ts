// The person's git identity reaching the standard git pack's commits: read from a home's global git
// configuration at load (LoadOptions.gitIdentity), shown in the plan an approval binds, set on the
// commit as author and committer, never taken from the repository's own config, and refused when a
// value holds a line break. Real git in temp directories.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatIssue, previewPackCall, runPackCommand } from '@harness/packs';
import { needs, tempDir } from '@harness/test-utils';
import { afterAll, expect, it } from 'vitest';
import { loadWorkspace, type Workspace } from '../src/index';

/** The load's identity warnings alone: a machine without a sandbox adds one of its own. */
const identityWarnings = <W extends { code: string }>(warnings: readonly W[]): W[] =>
  warnings.filter((w) => w.code === 'git_identity');

const withGit = needs('git');
const dir = tempDir('git-identity-');
afterAll(() => dir.cleanup());

let made = 0;

/** A fresh home holding `gitconfig` as its `.gitconfig` (none when `undefined`), and a repository with one file staged. */
function setup(gitconfig: string | undefined, repoIdentity?: { name: string; email: string }) {
  const root = join(dir.path, `case-${made++}`);
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  mkdirSync(home, { recursive: true });
  mkdirSync(repo, { recursive: true });
  if (gitconfig !== undefined) writeFileSync(join(home, '.gitconfig'), gitconfig);
  const git = (args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      env: { PATH: process.env.PATH ?? '', HOME: home, GIT_CONFIG_NOSYSTEM: '1' },
      encoding: 'utf8',
    });
  git(['init', '-q', '-b', 'main']);
  if (repoIdentity) {
    git(['config', 'user.name', repoIdentity.name]);
    git(['config', 'user.email', repoIdentity.email]);
  }
  writeFileSync(join(repo, 'notes.txt'), 'one\n');
  git(['add', 'notes.txt']);
  return { home, repo, git };
}

async function load(home: string, repo: string) {
  return loadWorkspace(
    {
      text: `command_packs:\n  - standard: git\n    cwd: ${JSON.stringify(repo)}\nagents:\n  - id: coder\n    grants: [pack:git, git.commit]\n`,
      file: join(repo, 'workspace.yaml'),
    },
    { probe: false, gitIdentity: true, home, env: {} },
  );
}

async function loaded(home: string, repo: string): Promise<Workspace> {
  const r = await load(home, repo);
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.workspace;
}

/** An approved commit as a host runs it: the plan previewed, then the program it resolved run. */
async function approvedCommit(ws: Workspace, message: string) {
  const preview = previewPackCall(ws, 'git.commit', { message });
  const ran = await runPackCommand(ws, 'git.commit', { message }, { program: preview.program });
  if (!ran.ok) throw new Error(ran.issues.map(formatIssue).join('\n'));
  return { plan: preview.plan, outcome: ran.outcome };
}

withGit.describe("the person's git identity in the standard git pack", () => {
  it("commits as the name and email of the person's ~/.gitconfig, and the plan shows them", async () => {
    const { home, repo, git } = setup('[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n');
    const ws = await loaded(home, repo);
    expect(identityWarnings(ws.warnings)).toEqual([]);
    const { plan, outcome } = await approvedCommit(ws, 'First note');
    expect(outcome.exitCode).toBe(0);
    expect(git(['log', '-1', '--format=%an%n%ae%n%cn%n%ce'])).toBe(
      'Ada Lovelace\nada@example.com\nAda Lovelace\nada@example.com\n',
    );
    expect(plan?.personEnv).toEqual({
      GIT_AUTHOR_NAME: 'Ada Lovelace',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada Lovelace',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    });
    expect(plan?.env).toContain('GIT_AUTHOR_NAME');
  });

  it('reads the identity from $XDG_CONFIG_HOME/git/config, as git config --global does', async () => {
    const { home, repo, git } = setup(undefined);
    mkdirSync(join(home, 'xdg', 'git'), { recursive: true });
    writeFileSync(
      join(home, 'xdg', 'git', 'config'),
      '[user]\n\tname = Grace Hopper\n\temail = grace@example.com\n',
    );
    const r = await loadWorkspace(
      {
        text: `command_packs:\n  - standard: git\n    cwd: ${JSON.stringify(repo)}\n`,
        file: join(repo, 'workspace.yaml'),
      },
      { probe: false, gitIdentity: true, home, env: { XDG_CONFIG_HOME: join(home, 'xdg') } },
    );
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect((await approvedCommit(r.workspace, 'x')).outcome.exitCode).toBe(0);
    expect(git(['log', '-1', '--format=%an <%ae>'])).toBe('Grace Hopper <grace@example.com>\n');
  });

  it("uses the person's identity over the one the repository's .git/config sets", async () => {
    const { home, repo, git } = setup('[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n', {
      name: 'Planted Name',
      email: 'planted@example.com',
    });
    await approvedCommit(await loaded(home, repo), 'Second note');
    expect(git(['log', '-1', '--format=%an%n%ae'])).toBe('Ada Lovelace\nada@example.com\n');
  });

  it("never reads the repository's .git/config as the person's identity", async () => {
    const { home, repo } = setup(undefined, { name: 'Planted Name', email: 'planted@example.com' });
    const ws = await loaded(home, repo);
    expect(ws.packs.find((p) => p.id === 'git')?.personEnv).toBeUndefined();
    expect(previewPackCall(ws, 'git.commit', { message: 'x' }).plan?.personEnv).toBeUndefined();
    expect(identityWarnings(ws.warnings).map((w) => [w.code, w.details])).toEqual([
      ['git_identity', { pack: 'git', reason: 'unset' }],
    ]);
  });

  it('warns at load, saying how to set it, when the home has no identity', async () => {
    const { home, repo } = setup('[core]\n\tautocrlf = false\n');
    const r = await load(home, repo);
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(identityWarnings(r.warnings).map((w) => w.message)).toEqual([
      'pack "git": user.name and user.email are not set in your global git configuration (~/.gitconfig or ~/.config/git/config), so git.commit has no identity of yours and fails with "Author identity unknown"; set it with git config --global user.name "Your Name" and git config --global user.email you@example.com',
    ]);
  });

  it('refuses a name holding a line break at load, with a message naming the key and the fix', async () => {
    const { home, repo } = setup('[user]\n\tname = "Ada\\nMallory"\n\temail = ada@example.com\n');
    const r = await load(home, repo);
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.workspace.packs.find((p) => p.id === 'git')?.personEnv).toBeUndefined();
    expect(identityWarnings(r.warnings).map((w) => [w.code, w.details, w.message])).toEqual([
      [
        'git_identity',
        { pack: 'git', reason: 'invalid' },
        'pack "git": user.name in your global git configuration holds a line break, so it is not given to git\'s commits; set it again with git config --global user.name "Your Name" and git config --global user.email you@example.com',
      ],
    ]);
  });

  it('leaves a workspace that sets the author itself to its own values', async () => {
    const { home, repo } = setup('[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n');
    const r = await loadWorkspace(
      {
        text: `command_packs:\n  - standard: git\n    cwd: ${JSON.stringify(repo)}\n    env: { GIT_AUTHOR_NAME: Bot, GIT_COMMITTER_NAME: Bot }\n`,
        file: join(repo, 'workspace.yaml'),
      },
      { probe: false, gitIdentity: true, home, env: {} },
    );
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.workspace.packs[0]?.personEnv).toEqual({
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    });
  });
});
