// git-status: `run_read_command git.status` (the standard git pack) through `harness serve` with the
// real MCP SDK client over stdio, against `git status --porcelain=v1` spawned directly with both
// pipes read, interleaved in one run, on a repository of 10 000 committed files with a few changed.
// Target: ratio ≤ 1.3. What the subject adds: MCP, the broker, the durable records, the hardened
// git command line (config overrides) and the read sandbox; the anchor is the git work itself.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleEach, writeResult } from '@harness/bench-utils';
import { resultOutcome } from '@harness/commands/mcp';
import { detectSandbox } from '@harness/exec';
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
  const value = resultOutcome(res) as { status?: string; outcome?: { ok?: boolean } } | undefined;
  if (value?.status !== 'executed' || value.outcome?.ok !== true) {
    throw new Error(`git.status failed: ${JSON.stringify(value).slice(0, 500)}`);
  }
}

function statusDirect(): Promise<void> {
  return spawned('git', ['status', '--porcelain=v1']);
}

// The floor of a confined read: the same git status inside bubblewrap with a read command's flags.
const detection = detectSandbox();
const bwrapFlags = ['--die-with-parent', '--unshare-pid', '--as-pid-1', '--unshare-ipc', '--unshare-net'];
function statusConfined(): Promise<void> {
  if (!detection.available) return statusDirect();
  // The repository is under the temp dir, which the sandbox's private /tmp hides: bound back, as a run's cwd is.
  const mounts = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--ro-bind',
    repo,
    repo,
  ];
  const gitPath = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  return spawned(detection.file, [
    ...bwrapFlags,
    ...mounts,
    '--chdir',
    repo,
    '--',
    gitPath,
    'status',
    '--porcelain=v1',
  ]);
}

function spawned(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: repo,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: join(dir.root, 'home') },
    });
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

try {
  const [subject, anchor, floor] = await sampleEach(
    [{ fn: statusThroughServe }, { fn: statusDirect }, { fn: statusConfined }],
    { rounds: 30, inner: 3, warmup: 3 },
  );
  const median = (stats: unknown) => (stats as { median: number }).median;
  const ratio = median(subject) / median(anchor);
  writeResult('git-status', {
    unit: 'ms per call',
    subject: {
      label: `run_read_command git.status through harness serve, MCP stdio, ${FILES} files`,
      ...(subject as object),
    },
    anchor: { label: `git status --porcelain=v1 spawned directly, ${FILES} files`, ...(anchor as object) },
    ratio,
    target: { ratioAtMost: 1.3 },
    pass: ratio <= 1.3,
    floor: {
      label:
        'the same git status inside bubblewrap with a read command’s flags, spawned directly (the sandbox’s own cost)',
      ...(floor as object),
      ratioToAnchor: median(floor) / median(anchor),
    },
    ratioToFloor: median(subject) / median(floor),
    notes:
      'the standard git pack with its default read sandbox and its config guard (sh, one git config listing, then git); the anchor runs git alone',
  });
  process.stdout.write(
    `git-status: ${median(subject).toFixed(2)} ms vs git status ${median(anchor).toFixed(2)} ms: ratio ${ratio.toFixed(3)} (target <= 1.3); confined floor ${median(floor).toFixed(2)} ms, ratio to the floor ${(median(subject) / median(floor)).toFixed(3)}\n`,
  );
} finally {
  await client.close();
  dir.cleanup();
}
