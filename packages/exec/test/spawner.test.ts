import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LINUX, needs, tempDir } from '@harness/test-utils';
import { afterEach, expect, it } from 'vitest';
import { createSpawner, type RunResult, run, type Spawner } from '../src/index';
import { alive, env, pids, spawnerUp } from './helpers';

// A spawner starts programs for this process: real `node -e` spawner processes, real children, /proc
// to see who started whom and who is still alive.

const spawners: Spawner[] = [];
afterEach(async () => {
  for (const s of spawners.splice(0)) await s.close();
});

function spawner(): Spawner {
  const s = createSpawner();
  spawners.push(s);
  return s;
}

/** The parent pid of a live process, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

needs(LINUX).describe('a spawner', () => {
  it('starts the first run directly while it comes up, and later runs itself', async () => {
    const s = spawner();
    const first = await run({ argv: ['sh', '-c', 'echo $PPID'], env, spawner: s });
    expect(Number(first.stdout.trim())).toBe(process.pid);
    const helper = await spawnerUp(s);
    expect(helper).not.toBe(process.pid);
    expect(parentOf(helper)).toBe(process.pid);
  });

  it('runs with a young generation of 1 MiB semi-spaces, so its memory stays flat under steady calls', async () => {
    const s = spawner();
    const helper = await spawnerUp(s);
    const argv = readFileSync(`/proc/${helper}/cmdline`, 'utf8').split('\0');
    expect(argv.slice(1, 3)).toEqual(['--max-semi-space-size=1', '-e']);
    expect(argv[3]?.startsWith('/* @harness/exec spawner */')).toBe(true);
  });

  it('gives the same result a direct run gives: output, stderr, exit status, stdin, its own group', async () => {
    const s = spawner();
    await spawnerUp(s);
    const argv = [
      'sh',
      '-c',
      'cat; echo "to stderr" >&2; echo "pid $$ group $(ps -o pgid= -p $$ | tr -d \' \')"; exit 3',
    ];
    const through = await run({ argv, env, stdin: 'from stdin\n', spawner: s });
    const direct = await run({ argv, env, stdin: 'from stdin\n' });
    const shape = (r: RunResult) => ({
      ok: r.ok,
      outcome: r.outcome,
      exitCode: r.exitCode,
      signal: r.signal,
      stderr: r.stderr,
      stdout: r.stdout.replace(/pid \d+ group \d+/, 'pid P group G'),
    });
    expect(shape(through)).toEqual(shape(direct));
    expect(shape(through)).toEqual({
      ok: false,
      outcome: 'exited',
      exitCode: 3,
      signal: null,
      stderr: 'to stderr\n',
      stdout: 'from stdin\npid P group G\n',
    });
    // The child leads its own group, as a direct run's does.
    expect(through.stdout).toContain(`pid ${through.pid} group ${through.pid}`);
  });

  it('tells onSpawn the pid before any output is read', async () => {
    const s = spawner();
    await spawnerUp(s);
    const seen: { pid: number; parent: number }[] = [];
    const r = await run({
      argv: ['sh', '-c', 'read line; echo "$line"'],
      env,
      stdin: 'early\n',
      spawner: s,
      // The child is alive at the call (it waits on its stdin): its parent is the spawner.
      onSpawn: (info) => seen.push({ pid: info.pid, parent: parentOf(info.pgid) }),
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.pid).toBe(r.pid);
    expect(seen[0]?.parent).not.toBe(process.pid);
    expect(r.stdout).toBe('early\n');
  });

  it('keeps every bound: a timeout kills the whole group, strays are killed, output past the ceiling fails', async () => {
    const s = spawner();
    await spawnerUp(s);
    const timed = await run({
      argv: ['sh', '-c', 'trap "" TERM; sleep 60 & echo $!; sleep 60'],
      env,
      spawner: s,
      timeoutMs: 300,
      killGraceMs: 100,
    });
    expect(timed.outcome).toBe('timed_out');
    for (const pid of [timed.pid, ...pids(timed.stdout)]) expect(alive(pid)).toBe(false);

    const stray = await run({ argv: ['sh', '-c', 'sleep 60 & echo $!'], env, spawner: s });
    expect(stray.strayKilled).toBe(true);
    for (const pid of pids(stray.stdout)) expect(alive(pid)).toBe(false);

    const loud = await run({ argv: ['yes'], env, spawner: s, maxOutputBytes: 1000 });
    expect(loud.outcome).toBe('output_exceeded');
    expect(loud.outputBytes.kept).toBe(1000);
  });

  it('runs calls at once: none waits for another to end', async () => {
    const s = spawner();
    await spawnerUp(s);
    const dir = tempDir('exec-spawner-');
    try {
      // A barrier: each child waits until all eight have arrived, which they can only if all run at once.
      const barrier = join(dir.path, 'arrived');
      const script = `echo $$ >> "${barrier}"; while [ "$(wc -l < "${barrier}")" -lt 8 ]; do sleep 0.02; done; echo $1`;
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          run({ argv: ['sh', '-c', script, 'sh', String(i)], env, spawner: s, timeoutMs: 20_000 }),
        ),
      );
      expect(results.map((r) => [r.outcome, r.stdout])).toEqual(
        Array.from({ length: 8 }, (_, i) => ['exited', `${i}\n`]),
      );
    } finally {
      dir.cleanup();
    }
  });

  it('ends a run whose spawner was killed as killed by SIGKILL, its group gone, and starts a new spawner for the next', async () => {
    const s = spawner();
    const helper = await spawnerUp(s);
    let spawned: (pid: number) => void = () => undefined;
    const started = new Promise<number>((resolve) => {
      spawned = resolve;
    });
    const pending = run({
      argv: ['sh', '-c', 'sleep 60'],
      env,
      spawner: s,
      onSpawn: (info) => spawned(info.pid),
    });
    const child = await started;
    process.kill(helper, 'SIGKILL');
    const r = await pending;
    expect([r.outcome, r.signal, r.ok]).toEqual(['signaled', 'SIGKILL', false]);
    expect(alive(child)).toBe(false);
    const next = await spawnerUp(s);
    expect(next).not.toBe(helper);
  });

  it("says nothing on the caller's stderr when the caller closes it before it is up", async () => {
    // The caller's stderr is the spawner's: the pipe closes when both have exited.
    const caller = spawn(
      process.execPath,
      ['--conditions=@harness/source', '--import', 'tsx', join(import.meta.dirname, 'spawner-leaver.ts')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    caller.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    caller.stdout.resume();
    const code = await new Promise<number | null>((resolve) => caller.once('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('is gone once closed, and leaves nothing it started running', async () => {
    const s = spawner();
    const helper = await spawnerUp(s);
    await s.close();
    expect(alive(helper)).toBe(false);
  });
});
