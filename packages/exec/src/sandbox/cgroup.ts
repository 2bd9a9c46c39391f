import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A pids cgroup made for one run. */
export interface PidsCgroup {
  /**
   * The launch of `file args…` inside the cgroup: a fixed `/bin/sh` trampoline writes its own pid
   * into the cgroup and then execs the program, so the program is in it from its first
   * instruction and everything it forks stays there. The bound is set before anything joins.
   */
  wrap(file: string, args: readonly string[]): { file: string; args: string[] };
  /** Removes the cgroup once the run is gone (best effort: a zombie not yet reaped keeps it busy). */
  remove(): void;
}

/** Joins the cgroup named by `$1`, then becomes the program that follows; no value is parsed. */
const TRAMPOLINE = 'echo $$ > "$1" || exit 126; shift; exec "$@"';

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
 * A fresh pids cgroup below this process's own, bounded to `max` tasks (threads included), or
 * `undefined` when none can be made (not root, no pids controller, a read-only cgroup tree). This
 * process never joins it: the child does, through the trampoline of `wrap`, after the bound is set,
 * so no moment exists in which the child runs in the cgroup unbounded.
 */
export function createPidsCgroup(max: number): PidsCgroup | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const own = ownPidsCgroup();
  if (own === undefined) return undefined;
  sequence += 1;
  const path = join(own, `harness-run-${process.pid}-${sequence}`);
  try {
    mkdirSync(path);
    writeFileSync(join(path, 'pids.max'), String(max));
  } catch {
    try {
      rmdirSync(path);
    } catch {
      // never made
    }
    return undefined;
  }
  return {
    wrap(file, args) {
      return { file: '/bin/sh', args: ['-c', TRAMPOLINE, 'sh', join(path, 'cgroup.procs'), file, ...args] };
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
