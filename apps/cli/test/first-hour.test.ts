// The first hour, end to end, on fixture projects shaped like real ones: a small JavaScript library
// (ava, xo and tsd declared), a Python package in a src/ layout tested with pytest, and a Rust crate
// whose benches need nightly. For each: `harness init`, then a real MCP client started exactly as
// the written .mcp.json says does what an agent does — status, search, read, the tests five times
// with no approval asked — and then a commit, held for one approval a person gives from the
// project directory, which lands with the person's identity from ~/.gitconfig.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { needs } from '@harness/test-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, expect, it } from 'vitest';
import { baseEnv, bin, type CliRun, get, sandbox, structured } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

// `harness` on PATH, as a person who installed it has it: the client entry init writes may name it.
const shims = join(box.root, 'bin');
mkdirSync(shims, { recursive: true });
writeFileSync(
  join(shims, 'harness'),
  `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} "$@"\n`,
);
chmodSync(join(shims, 'harness'), 0o755);
const env = () => baseEnv(box.home, { PATH: `${shims}:${process.env.PATH ?? ''}` });

mkdirSync(box.home, { recursive: true });
writeFileSync(join(box.home, '.gitconfig'), '[user]\n\tname = Ada Person\n\temail = ada@example.com\n');

/** The bin run in `cwd` with the test's HOME and PATH. */
function harnessIn(cwd: string, args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: env(), timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...env(), GIT_CONFIG_NOSYSTEM: '1' }, encoding: 'utf8' });

/** Writes `files` under a new repository `name` with one commit, and returns its directory. */
function project(name: string, files: Record<string, string>): string {
  const dir = join(box.root, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

/** A real MCP client started as the project's .mcp.json says, in the project directory. */
async function clientFor(dir: string): Promise<Client> {
  const entry = JSON.parse(readFileSync(join(dir, '.mcp.json'), 'utf8')).mcpServers.harness as {
    command: string;
    args: string[];
  };
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    cwd: dir,
    env: env(),
  });
  const client = new Client({ name: 'first-hour-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

const call = async (client: Client, tool: string, command: string, args: Record<string, unknown> = {}) =>
  structured(await client.callTool({ name: tool, arguments: { command, args } }));

const confined = detectSandbox().available;
const withGit = needs('git');

/** What an agent does in the project, the test command run five times, then one commit. */
async function firstHour(
  dir: string,
  test: { command: string; args?: Record<string, unknown>; says: RegExp },
) {
  const init = await harnessIn(dir, ['init', '--client', 'claude-code']);
  expect(init.code, init.stderr + init.stdout).toBe(0);
  // Nothing of this machine in the file a team commits: harness is on PATH, so the entry names it.
  expect(JSON.parse(readFileSync(join(dir, '.mcp.json'), 'utf8')).mcpServers.harness).toEqual({
    command: 'harness',
    args: ['serve'],
  });
  const client = await clientFor(dir);
  try {
    expect(await call(client, 'run_read_command', 'git.status')).toMatchObject({ status: 'executed' });
    const found = await call(client, 'run_read_command', 'search.grep', { pattern: 'answer' });
    expect(JSON.stringify(found)).toMatch(/answer/);
    for (let i = 0; i < 5; i++) {
      const ran = await call(client, 'run_command', test.command, test.args ?? {});
      if (!confined) {
        expect(get(ran, 'outcome', 'code')).toBe('approval_required');
        break;
      }
      expect(get(ran, 'outcome', 'ok'), JSON.stringify(ran)).toBe(true);
      expect(String(get(ran, 'entry', 'value', 'output'))).toMatch(test.says);
    }
    writeFileSync(join(dir, 'CHANGES.md'), 'A change the agent made.\n');
    expect(await call(client, 'run_command', 'git.add', { path: 'CHANGES.md' })).toMatchObject({
      outcome: { code: 'approval_required' },
    });
    const stage = await harnessIn(dir, ['approvals', 'list', '--json']);
    expect(stage.code, stage.stderr).toBe(0);
    // Where nothing confines the tests (no bubblewrap), their first run waits here too.
    const staging = (
      JSON.parse(stage.stdout) as { approvals: { id: string; command: string }[] }
    ).approvals.filter((a) => a.command === 'git.add');
    expect(staging).toHaveLength(1);
    expect((await harnessIn(dir, ['approvals', 'approve', staging[0]!.id])).code).toBe(0);
    expect(get(await call(client, 'run_command', 'git.add', { path: 'CHANGES.md' }), 'outcome', 'ok')).toBe(
      true,
    );

    const held = await call(client, 'run_command', 'git.commit', { message: 'Add the changes' });
    expect(get(held, 'outcome', 'code')).toBe('approval_required');
    const id = String(get(held, 'entry', 'value', 'approval', 'id'));
    const listed = await harnessIn(dir, ['approvals', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${id}  pending  git.commit`);
    // What a person judges: the command as its author wrote it for people, and what is staged.
    expect(listed.stdout).toContain('  runs  git commit --message "Add the changes"\n');
    expect(listed.stdout).toMatch(/ CHANGES\.md \| 1 \+/);
    expect(listed.stdout).not.toContain('sh -c');
    expect((await harnessIn(dir, ['approvals', 'approve', id])).code).toBe(0);
    expect(
      get(await call(client, 'run_command', 'git.commit', { message: 'Add the changes' }), 'outcome', 'ok'),
    ).toBe(true);
    expect(git(dir, 'log', '-1', '--format=%an <%ae> %s')).toBe(
      'Ada Person <ada@example.com> Add the changes\n',
    );
    return listed.stdout;
  } finally {
    await client.close();
  }
}

withGit.describe('the first hour in a fresh repository', () => {
  it('a JavaScript library: tests run unattended five times, one commit with one approval, the person’s identity', async () => {
    const dir = project('js-lib', {
      'package.json': `${JSON.stringify(
        {
          name: 'tiny-lib',
          version: '1.0.0',
          type: 'module',
          scripts: { test: 'node --test', lint: 'node lint.js' },
          devDependencies: { ava: '^6.0.0', xo: '^0.60.0', tsd: '^0.31.0' },
        },
        null,
        2,
      )}\n`,
      'index.js': 'export const answer = () => 42;\n',
      'index.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { answer } from './index.js';\ntest('answer', () => assert.equal(answer(), 42));\n",
      'lint.js': 'console.log("lint ok");\n',
    });
    await firstHour(dir, { command: 'node.test', says: /pass 1/ });
  }, 240_000);

  needs('pytest').it(
    'a Python package in a src/ layout: pytest finds the package, five runs unattended, one commit',
    async () => {
      const dir = project('py-src', {
        'pyproject.toml':
          '[project]\nname = "answer"\nversion = "0.1.0"\n\n[tool.setuptools]\npackage-dir = {"" = "src"}\n',
        'src/answer/__init__.py': 'def answer():\n    return 42\n',
        'tests/test_answer.py':
          'from answer import answer\n\n\ndef test_answer():\n    assert answer() == 42\n',
      });
      await firstHour(dir, { command: 'python.pytest', says: /1 passed/ });
    },
    240_000,
  );

  needs('cargo').it(
    'a Rust crate whose benches need nightly: checked on stable, five runs unattended, one commit',
    async () => {
      const dir = project('rust-crate', {
        'Cargo.toml': '[package]\nname = "answer"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
        'src/lib.rs':
          'pub fn answer() -> u32 {\n    42\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn it_answers() {\n        assert_eq!(super::answer(), 42);\n    }\n}\n',
        'benches/speed.rs':
          '#![feature(test)]\nextern crate test;\n\n#[bench]\nfn bench_answer(b: &mut test::Bencher) {\n    b.iter(answer::answer);\n}\n',
      });
      const listed = await firstHour(dir, { command: 'rust.test', says: /test result: ok/ });
      expect(listed).toContain('git commit');
      // init left the nightly benches out of the check's default targets: it compiles on stable.
      const client = await clientFor(dir);
      try {
        const checked = await call(client, 'run_command', 'rust.check');
        if (confined) expect(get(checked, 'outcome', 'ok'), JSON.stringify(checked)).toBe(true);
      } finally {
        await client.close();
      }
    },
    300_000,
  );
});
