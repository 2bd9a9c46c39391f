import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ExecError, run, type SpawnInfo } from '../src/index';
import { alive, env } from './helpers';

// `onSpawn` lets a caller record the group somewhere that outlives it (the host writes
// `<instance>/running/<pgid>.json`, so a broker killed with SIGKILL can be cleaned up after).

/** Process group id of `pid`, read from /proc (field 5 of stat). */
function pgidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

describe('onSpawn', () => {
  it('is called once, synchronously, with the pid and the group the child leads', async () => {
    const seen: { info: SpawnInfo; pgid: number }[] = [];
    const pending = run({
      argv: ['sh', '-c', 'echo hi'],
      env,
      onSpawn: (info) => seen.push({ info, pgid: pgidOf(info.pid) }),
    });
    // Called before run() handed back its promise: nothing can happen to the child unrecorded.
    expect(seen).toHaveLength(1);
    const r = await pending;
    expect(r.stdout).toBe('hi\n');
    expect(seen).toEqual([{ info: { pid: r.pid, pgid: r.pid }, pgid: r.pid }]);
  });

  it('kills the group and rejects with the hook’s own error when the hook throws', async () => {
    const failure = new Error('could not record the group');
    let pid = 0;
    await expect(
      run({
        argv: ['sh', '-c', 'trap "" TERM; sleep 60 & sleep 60'],
        env,
        onSpawn: (info) => {
          pid = info.pid;
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });

  it('is not called when nothing was spawned', async () => {
    let calls = 0;
    await expect(run({ argv: ['no-such-program-here'], env, onSpawn: () => calls++ })).rejects.toBeInstanceOf(
      ExecError,
    );
    expect(calls).toBe(0);
  });
});
