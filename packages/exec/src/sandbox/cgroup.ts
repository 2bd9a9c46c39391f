import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A pids cgroup made for one run. */
export interface PidsCgroup {
  /** Starts `spawn` inside the cgroup (whatever it forks stays there) and sets the bound. */
  spawnInside<T>(spawn: () => T): T;
  /** Removes the cgroup once the run is gone (best effort: a zombie not yet reaped keeps it busy). */
  remove(): void;
}

let sequence = 0;

// Where this process's pids cgroup lives: cgroup v1 has a pids hierarchy of its own, v2 one tree.
function ownPidsCgroup(): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return undefined;
  }
  for (const line of lines) {
    const [, controllers, path] = line.split(':');
    if (path === undefined) continue;
    if (controllers?.split(',').includes('pids')) return join('/sys/fs/cgroup/pids', path);
  }
  const unified = lines.find((line) => line.startsWith('0::'));
  if (unified === undefined) return undefined;
  const base = join('/sys/fs/cgroup', unified.slice(3));
  try {
    if (!readFileSync(join(base, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) {
      return undefined;
    }
  } catch {
    return undefined;
  }
  return base;
}

/**
 * A fresh pids cgroup below this process's own, or `undefined` when none can be made (not root, no
 * pids controller, a read-only cgroup tree). The child is started from inside it: this process
 * joins the cgroup for the synchronous spawn call only and leaves again, so the child is in it from
 * its first instruction; the bound is set once this process has left (its own threads would count
 * otherwise). A cgroup's bound counts every task in it, threads included.
 */
export function createPidsCgroup(max: number): PidsCgroup | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const own = ownPidsCgroup();
  if (own === undefined) return undefined;
  sequence += 1;
  const path = join(own, `harness-run-${process.pid}-${sequence}`);
  try {
    mkdirSync(path);
  } catch {
    return undefined;
  }
  return {
    spawnInside<T>(spawn: () => T): T {
      writeFileSync(join(path, 'cgroup.procs'), String(process.pid));
      try {
        return spawn();
      } finally {
        writeFileSync(join(own, 'cgroup.procs'), String(process.pid));
        writeFileSync(join(path, 'pids.max'), String(max));
      }
    },
    remove(): void {
      try {
        rmdirSync(path);
      } catch {
        // EBUSY: an orphaned zombie of the run that nothing reaped yet; the empty cgroup stays.
      }
    },
  };
}
