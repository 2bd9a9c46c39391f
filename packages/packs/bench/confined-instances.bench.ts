// confined-instances: what a confined command costs as the user's instances grow. A person with
// `harness init` in many projects has an instance each under ~/.local/share/harness, and every one
// is recorded for hiding. For 1, 100 and 1 000 registered instances: a confined read of `true`
// through the pack runner (the workspace loaded with those instances to hide, as a host loads it),
// the same command unconfined, and the floor: bubblewrap started directly with the same namespaces
// around `true`. Target: confined <= 1.5 x (unconfined + bare bwrap) at 1 000.
// Beside it, the deny list as it was before the home was hidden by allow-list (every instance a
// mount of its own, every built-in credential path stat-ed each run), through exec's run directly.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sampleEach, writeResult } from '@harness/bench-utils';
import { detectSandbox, run, type SandboxPolicy } from '@harness/exec';
import { loadPacks, type PackSet, runPackCommand } from '@harness/packs';
import { BUILTIN_DENY, harnessHiddenPaths } from '../src/load/sandbox';

const detection = detectSandbox();
if (!detection.available) {
  console.error(`confined-instances skipped: ${detection.reason}`);
  process.exit(0);
}

// Outside /tmp: the run's /tmp is private, which would hide the home for the wrong reason.
const root = mkdtempSync('/var/tmp/confined-instances-');
const home = join(root, 'home');
const project = join(home, 'src', 'app');
mkdirSync(project, { recursive: true });
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const WORKSPACE = `command_packs:
  - id: c
    cwd: ${JSON.stringify(project)}
    commands:
      - { id: t, argv: ['true'], effects: read }
  - id: u
    cwd: ${JSON.stringify(project)}
    sandbox: false
    commands:
      - { id: t, argv: ['true'], effects: read }
`;

/** N instance directories where `harness init` puts them. */
function instances(n: number): string[] {
  const dirs = Array.from({ length: n }, (_, i) =>
    join(home, '.local', 'share', 'harness', `p${i}-0123abcd`),
  );
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  return dirs;
}

async function load(hide: string[]): Promise<PackSet> {
  const r = await loadPacks(
    { file: join(project, '.harness', 'workspace.yaml'), text: WORKSPACE },
    { probe: false, home, hide, env: { HOME: home } },
  );
  if (!r.ok) throw new Error(`load failed: ${JSON.stringify(r.issues)}`);
  return r.packs;
}

async function call(ws: PackSet, id: string): Promise<void> {
  const r = await runPackCommand(ws, id, {}, {});
  if (!r.ok || !r.outcome.ok) throw new Error(`${id} failed: ${JSON.stringify(r)}`);
}

const BWRAP = ['--die-with-parent', '--unshare-pid', '--as-pid-1', '--unshare-ipc', '--unshare-net'];
const MOUNTS = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];

function bareBwrap(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      detection.available ? detection.file : 'bwrap',
      [...BWRAP, ...MOUNTS, '--', '/usr/bin/true'],
      {
        detached: true,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.resume();
    child.stderr?.resume();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`bwrap exited ${code}`))));
  });
}

async function before(policy: SandboxPolicy): Promise<void> {
  const r = await run({ argv: ['true'], env, cwd: project, sandbox: policy });
  if (!r.ok) throw new Error(`before failed: ${r.outcome} ${r.stderr}`);
}

const rows: Record<string, unknown>[] = [];
let made = 0;
for (const n of [1, 100, 1000]) {
  const hide = instances(n);
  made = n;
  const ws = await load(hide);
  const confined = ws.packs.find((p) => p.id === 'c')?.commands[0]?.sandbox;
  const oldDeny: SandboxPolicy = {
    deny: [...BUILTIN_DENY.map((p) => join(home, p)), ...harnessHiddenPaths(home, { HOME: home }), ...hide],
  };
  const [c, u, floor, old] = await sampleEach(
    [
      { fn: () => call(ws, 'c.t') },
      { fn: () => call(ws, 'u.t') },
      { fn: bareBwrap },
      { fn: () => before(oldDeny) },
    ],
    { rounds: 15, inner: 4, warmup: 2 },
  );
  const budget = (u?.median ?? 0) + (floor?.median ?? 0);
  rows.push({
    instances: n,
    mountsInPolicy: {
      deny: confined?.deny?.length ?? null,
      homeVisible: confined?.home?.visible.length ?? null,
    },
    confined: c,
    unconfined: u,
    bareBwrap: floor,
    denyListBefore: old,
    ratio: (c?.median ?? 0) / budget,
    ratioBeforeToNow: (old?.median ?? 0) / (c?.median ?? 1),
  });
  console.log(
    `${n} instances: confined ${c?.median.toFixed(2)} ms, unconfined ${u?.median.toFixed(2)} ms, bare bwrap ${floor?.median.toFixed(2)} ms, ratio ${((c?.median ?? 0) / budget).toFixed(2)} (target <= 1.5); the deny list before: ${old?.median.toFixed(2)} ms`,
  );
}
writeResult('confined-instances', {
  unit: 'ms',
  target: 1.5,
  targetKind: 'max',
  notes:
    'ratio = confined / (unconfined + bare bwrap with the same namespaces), per registered instance count. denyListBefore: exec run with the deny list as it was (every built-in path and every instance a mount).',
  rows,
});
rmSync(root, { recursive: true, force: true });
console.log(`(${made} instance directories made and removed)`);
