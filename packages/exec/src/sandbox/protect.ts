// The protected paths of confined runs in this process: what each is at plan time, and the
// placeholders bubblewrap creates for the missing ones (an empty file or directory, mounted over
// read-only so the run cannot create the real thing there), removed once no run holds them.
import { lstatSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDirectory } from '../resolve';
import type { ProtectedPath } from './bwrap';

/** What one run holds of the protected paths. */
export interface ProtectHold {
  /** Per protected path, in order: what it is now (see `BwrapLayout.protectKinds`). */
  readonly kinds: readonly ('dir' | 'file' | 'missing' | 'skip')[];
  /** Lets go of them once the run (its whole pid namespace) is gone; idempotent. */
  release(): void;
}

// Runs in flight per protected path, and the placeholders this process created. A placeholder is
// removed only when the last run holding it ends: unlinking a mount point in another run's mount
// namespace would detach that run's mount, and let it create the file after all.
const holders = new Map<string, number>();
const created = new Set<string>();

function kindOf(path: string): 'dir' | 'file' | 'missing' | 'skip' {
  const dir = isDirectory(path);
  if (dir !== undefined) return dir ? 'dir' : 'file';
  try {
    lstatSync(path);
    // A dangling link: mounting over it would create its target; hold it like a file.
    return 'file';
  } catch {
    // Missing. Only a placeholder whose parent exists: bubblewrap would create the parents too.
    return isDirectory(dirname(path)) === true ? 'missing' : 'skip';
  }
}

/** Removes a placeholder still as bubblewrap made it (empty); anything a person put there stays. */
function removePlaceholder(path: string): void {
  try {
    const st = lstatSync(path);
    if (st.isDirectory() && readdirSync(path).length === 0) rmdirSync(path);
    else if (st.isFile() && st.size === 0) unlinkSync(path);
  } catch {
    // Gone already, or not ours to remove.
  }
}

/** Takes hold of `paths` for one run. */
export function holdProtected(paths: readonly ProtectedPath[]): ProtectHold {
  const kinds = paths.map(({ path }) => {
    const kind = kindOf(path);
    if (kind === 'missing') created.add(path);
    if (kind !== 'skip') holders.set(path, (holders.get(path) ?? 0) + 1);
    return kind;
  });
  let released = false;
  return {
    kinds,
    release() {
      if (released) return;
      released = true;
      paths.forEach(({ path }, i) => {
        if (kinds[i] === 'skip') return;
        const left = (holders.get(path) ?? 1) - 1;
        if (left > 0) {
          holders.set(path, left);
          return;
        }
        holders.delete(path);
        if (created.delete(path)) removePlaceholder(path);
      });
    },
  };
}
