import { describe, expect, it } from 'vitest';
import { run } from '../src/index';
import { alive, env, node, pids } from './helpers';

// Every kill goes to the whole process group (the child runs detached, as its leader): SIGTERM, then
// SIGKILL after killGraceMs. These tests print the pids of descendants and check afterwards, through
// /proc, that none is left running.

describe('process group kill', () => {
  it('kills descendants that ignore SIGTERM when the timeout fires', async () => {
    const script = 'trap "" TERM; sleep 100 & echo $!; sleep 100 & echo $!; echo $$; wait';
    const r = await run({ argv: ['sh', '-c', script], env, timeoutMs: 300, killGraceMs: 200 });
    const seen = pids(r.stdout);
    expect(seen).toHaveLength(3);
    expect(r).toMatchObject({ outcome: 'timed_out', timedOut: true, ok: false, signal: 'SIGKILL' });
    for (const pid of [...seen, r.pid]) expect(alive(pid)).toBe(false);
  });

  it('kills a node descendant that traps SIGTERM', async () => {
    const child = `process.on("SIGTERM", () => {}); console.log(process.pid); setInterval(() => {}, 1000)`;
    const script = `${JSON.stringify(node)} -e '${child}' & wait`;
    const r = await run({ argv: ['sh', '-c', script], env, timeoutMs: 2_000, killGraceMs: 200 });
    const [grandchild] = pids(r.stdout);
    expect(grandchild).toBeGreaterThan(0);
    expect(r.timedOut).toBe(true);
    expect(alive(grandchild as number)).toBe(false);
  });

  it('kills the group when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = run({
      argv: ['sh', '-c', 'sleep 100 & echo $!; wait'],
      env,
      signal: controller.signal,
      killGraceMs: 200,
      // Aborts once the shell printed its child's pid: the group then holds the sleep.
      onOutputBytes: () => controller.abort(),
    });
    const r = await pending;
    expect(r).toMatchObject({ outcome: 'cancelled', cancelled: true, timedOut: false, ok: false });
    for (const pid of [...pids(r.stdout), r.pid]) expect(alive(pid)).toBe(false);
  });

  it('kills the group when output passes the ceiling under "fail"', async () => {
    const r = await run({
      argv: ['sh', '-c', 'trap "" TERM; echo $$; yes'],
      env,
      maxOutputBytes: 10_000,
      killGraceMs: 200,
    });
    expect(r.outcome).toBe('output_exceeded');
    const [shell] = pids(r.stdout.split('\n').slice(0, 1).join('\n'));
    expect(alive(shell as number)).toBe(false);
  });

  it('does not wait for the timeout when the child exits leaving a descendant holding the pipes', async () => {
    const r = await run({
      argv: ['sh', '-c', 'sleep 100 & echo $!; echo done'],
      env,
      timeoutMs: 20_000,
      killGraceMs: 200,
    });
    expect(r).toMatchObject({ ok: true, outcome: 'exited', exitCode: 0, strayKilled: true, timedOut: false });
    expect(r.durationMs).toBeLessThan(10_000);
    const [stray] = pids(r.stdout);
    expect(alive(stray as number)).toBe(false);
  });

  it('kills a stray that let go of the pipes and ignores SIGTERM', async () => {
    const r = await run({
      argv: ['sh', '-c', 'trap "" TERM; sleep 100 </dev/null >/dev/null 2>&1 & echo $!'],
      env,
      timeoutMs: 20_000,
      killGraceMs: 200,
    });
    expect(r).toMatchObject({ ok: true, strayKilled: true });
    const [stray] = pids(r.stdout);
    expect(alive(stray as number)).toBe(false);
  });

  it('reports no stray when the child leaves nothing behind', async () => {
    const r = await run({ argv: ['sh', '-c', 'true & wait; echo ok'], env });
    expect(r).toMatchObject({ ok: true, strayKilled: false, stdout: 'ok\n' });
  });
});
