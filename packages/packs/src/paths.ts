// The `within_cwd` check of a path input: the value must name something inside the pack's working
// directory, as the kernel will resolve it when the program opens it. Packs do not confine paths in
// general (seed 003, "Path confinement"; CP-78): an input opts in, and only for values that are
// paths relative to the cwd (docs/packs.md, "Paths that stay inside the cwd").
import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';

/**
 * Why a path leaves the cwd: `absolute` (it starts at `/`), `parent` (a `..` segment: refused
 * whatever it resolves to, because `link/..` is the parent of the link's target to the kernel, not
 * the directory holding the link), `symlink` (a symlink on the way leads outside the cwd, or nowhere).
 */
export type PathEscape = 'absolute' | 'parent' | 'symlink';

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * Why `value`, read as a path relative to `cwd`, would reach outside `cwd`; `undefined` when it stays
 * inside. With `cwd` `null`, only the value as written is judged (absolute, `..`). Otherwise each
 * segment that exists is looked at with `lstat`: a symlink is followed (`realpath`) and must land
 * inside the cwd's real path; a dangling or looping one is refused. The first segment that does not
 * exist ends the walk (nothing below it exists, and no `..` is left to climb back).
 *
 * What it cannot see: a file swapped for a symlink between this check and the program opening it
 * (a race only a command that writes the tree can start), and hard links, which are the file itself.
 */
export function pathEscape(value: string, cwd: string | null): PathEscape | undefined {
  if (isAbsolute(value)) return 'absolute';
  const segments = value.split('/');
  if (segments.includes('..')) return 'parent';
  // A NUL byte is refused by the renderer, by name; no file system call can take one.
  if (cwd === null || value.includes('\0')) return undefined;
  let root: string;
  try {
    root = realpathSync(cwd);
  } catch {
    root = resolve(cwd);
  }
  let current = root;
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    const next = join(current, segment);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      return undefined;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    let target: string;
    try {
      target = realpathSync(next);
    } catch {
      return 'symlink';
    }
    if (!inside(target, root)) return 'symlink';
    current = target;
  }
  return undefined;
}

/** How a refusal reads in a message: what was found, never the value itself. */
export const PATH_ESCAPE_WORDS: Readonly<Record<PathEscape, string>> = {
  absolute: 'an absolute path',
  parent: 'a path with a .. segment',
  symlink: 'a path through a symlink that leads outside it (or nowhere)',
};
