// loom start-up: `loom command list` and `loom command run` of a trivial read through a live broker,
// each against `node -e 0` in the same run (target: wall-time ratio ≤ 2). Run `pnpm build` first.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare } from '@harness/bench-utils';

const LOOM = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'loom.js');
const dir = mkdtempSync(join(tmpdir(), 'loom-bench-'));
writeFileSync(join(dir, 'workspace.yaml'), 'version: 1\nagents:\n  - id: bench\n');
writeFileSync(join(dir, 'scope.yaml'), 'run: bench\nagent: bench\n');
execFileSync(process.execPath, [
  LOOM,
  'init',
  join(dir, 'instance'),
  '--workspace',
  join(dir, 'workspace.yaml'),
]);
const queue = join(dir, 'q.sock');
const broker = spawn(
  process.execPath,
  [
    LOOM,
    'broker',
    'start',
    '--instance',
    join(dir, 'instance'),
    '--socket',
    queue,
    '--scope',
    join(dir, 'scope.yaml'),
  ],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
await new Promise<void>((resolve) => broker.stdout.once('data', () => resolve()));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LOOM_PAGE_RPC_QUEUE: queue };
const node0 = () => spawnSync(process.execPath, ['-e', '0'], { env });
const must = (r: ReturnType<typeof spawnSync>) => {
  if (r.status !== 0) throw new Error(`loom exited ${r.status}: ${String(r.stdout)}${String(r.stderr)}`);
};
// A trivial read: authoring-context of a fresh run (no receipts, no target).
const args = '{}';
try {
  await compare({
    name: 'loom-startup-list',
    subject: {
      label: 'loom command list --json (live broker)',
      fn: () => must(spawnSync(process.execPath, [LOOM, 'command', 'list', '--json'], { env })),
    },
    anchor: { label: 'node -e 0', fn: node0 },
    rounds: 20,
    target: 2,
    notes: 'Wall time of one process each, interleaved.',
  });
  await compare({
    name: 'loom-startup-run',
    subject: {
      label: 'loom command run loom.authoring-context --args-json - --json (live broker)',
      fn: () =>
        must(
          spawnSync(
            process.execPath,
            [LOOM, 'command', 'run', 'loom.authoring-context', '--args-json', '-', '--json', '--read-only'],
            {
              env,
              input: args,
            },
          ),
        ),
    },
    anchor: { label: 'node -e 0', fn: node0 },
    rounds: 20,
    target: 2,
    notes: 'Wall time of one process each, interleaved; the command is a read granted read-only.',
  });
} finally {
  broker.kill('SIGTERM');
  await new Promise((r) => broker.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
