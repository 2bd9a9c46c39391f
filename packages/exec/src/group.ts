import { readdirSync } from 'node:fs';
import { procStatFields } from './proc';

/** Sends `signal` to every process of group `pgid`; a group already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/**
 * Whether group `pgid` still has a live (non-zombie) member. `kill(-pgid, 0)` alone is not enough:
 * an orphaned zombie keeps its group id until something reaps it, and in containers whose PID 1 is
 * not an init, nothing ever does. On Linux the zombies are told apart through /proc.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    // State, ppid, pgrp, …; a process that exited while we looked has none.
    const fields = procStatFields(entry);
    if (fields && Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

// Groups still running when this process exits are killed, so a crash of the caller does not leave
// detached children behind. Installed lazily, once.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
  }
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}
