// git-status: `run_read_command git.status` (the standard git pack) through `harness serve` with the
// real MCP SDK client over stdio, against `git status --porcelain=v2` spawned directly with both
// pipes read, interleaved in one run, on a repository of 10 000 committed files with a few changed.
// Target: ratio ≤ 1.3. What the subject adds: MCP, the broker, the durable records, the hardened
// git command line (config overrides) and the read sandbox; the anchor is the git work itself.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compare } from '@harness/bench-utils';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchDir, bin, requireBin } from './fixture';

requireBin('git-status');
const FILES = 10_000;
const dir = benchDir();
const repo = join(dir.root, 'repo');
mkdirSync(repo);
// 100 directories of 100 files, committed; then one file changed, one added and one staged.
for (let d = 0; d < FILES / 100; d++) {
  mkdirSync(join(repo, `dir${d}`));
  for (let f = 0; f < 100; f++) writeFileSync(join(repo, `dir${d}`, `file${f}.txt`), `line ${d}.${f}\n`);
}
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', HOME: join(dir.root, 'home'), GIT_CONFIG_NOSYSTEM: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
git('init', '-q', '-b', 'main');
git('add', '.');
git(
  '-c',
  'user.name=bench',
  '-c',
  'user.email=bench@example.com',
  'commit',
  '-q',
  '-m',
  'ten thousand files',
);
writeFileSync(join(repo, 'dir0', 'file0.txt'), 'changed\n');
writeFileSync(join(repo, 'new.txt'), 'new\n');
writeFileSync(join(repo, 'dir1', 'file1.txt'), 'staged\n');
git('add', 'dir1/file1.txt');

const workspace = join(dir.root, 'workspace.yaml');
writeFileSync(
  workspace,
  `version: 1
command_packs:
  - standard: git
    cwd: ${JSON.stringify(repo)}
agents:
  - id: coder
    grants: [pack:git]
`,
);
const client = new Client({ name: 'harness-bench', version: '0.0.0' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', '--instance', dir.instance, '--workspace', workspace, '--agent', 'coder'],
    env: { PATH: process.env.PATH ?? '', HOME: join(dir.root, 'home'), NO_COLOR: '1' },
    stderr: 'ignore',
  }),
);

async function statusThroughServe(): Promise<void> {
  const res = await client.callTool({
    name: 'run_read_command',
    arguments: { command: 'git.status', args: {} },
  });
  const value = res.structuredContent as { status?: string; outcome?: { ok?: boolean } } | undefined;
  if (value?.status !== 'executed' || value.outcome?.ok !== true) {
    throw new Error(`git.status failed: ${JSON.stringify(res.structuredContent).slice(0, 500)}`);
  }
}

function statusDirect(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['status', '--porcelain=v2'], {
      cwd: repo,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: join(dir.root, 'home') },
    });
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`git status exited ${code}`))));
  });
}

try {
  const result = await compare({
    name: 'git-status',
    subject: {
      label: `run_read_command git.status through harness serve, MCP stdio, ${FILES} files`,
      fn: statusThroughServe,
    },
    anchor: { label: `git status --porcelain=v2 spawned directly, ${FILES} files`, fn: statusDirect },
    rounds: 30,
    inner: 3,
    warmup: 3,
    target: 1.3,
    notes:
      'the standard git pack with its default read sandbox; the anchor runs git without the pack’s config overrides or sandbox',
  });
  const anchor = (result as { anchor: { median: number } }).anchor.median;
  process.stdout.write(`git-status: anchor (git status alone) ${anchor.toFixed(2)} ms at the median\n`);
} finally {
  await client.close();
  dir.cleanup();
}
