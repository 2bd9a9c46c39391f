import { readFileSync } from 'node:fs';
import { until } from '@harness/test-utils';
import { run, type Spawner } from '../src/index';

/** The environment most tests give the child: a PATH and nothing else. */
export const env = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };

/** Absolute path of the node binary running the tests. */
export const node = process.execPath;

/**
 * Whether `pid` is a live process. A zombie counts as dead: it runs nothing, and in containers whose
 * PID 1 does not reap orphans it would otherwise look alive forever.
 */
export function alive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  return state !== 'Z' && state !== 'X';
}

/** Pids printed one per line by a child. */
export function pids(text: string): number[] {
  return text
    .split('\n')
    .filter((line) => /^\d+$/.test(line.trim()))
    .map(Number);
}

/** A node script (for `node -e`) that prints its argv after the script as JSON. */
export const printArgv = 'process.stdout.write(JSON.stringify(process.argv.slice(1)))';

/**
 * The pid of `s`'s spawner once it is up: a spawner starts the first runs directly while it comes
 * up, so this runs `echo $PPID` through it until the parent is not this process.
 */
export async function spawnerUp(s: Spawner): Promise<number> {
  return until(async () => {
    const r = await run({ argv: ['sh', '-c', 'echo $PPID'], env, spawner: s });
    const parent = Number(r.stdout.trim());
    return parent !== process.pid && parent;
  }, 'the spawner to come up and start a run itself');
}
