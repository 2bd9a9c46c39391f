// Where a file of the project really leads. A repository can ship `.mcp.json` as a symlink to
// `~/.claude.json`, or `.vscode` as one to a directory outside it; init would then read the
// person's file into the project and write there. So every project file init reads or writes must
// resolve, link by link and dangling links included, to a place inside the project's real path.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

/** How many symlinks one resolution follows before it gives up, as Linux's ELOOP does. */
const MAX_LINKS = 40;

/**
 * The real path `path` leads to, whether or not it exists: the real path of what exists, then the
 * rest of the path; a dangling symlink is followed through its link text. `undefined` for a loop.
 */
export function realTarget(path: string): string | undefined {
  let links = 0;
  const walk = (p: string): string | undefined => {
    try {
      return realpathSync(p);
    } catch {
      // Missing, or a dangling symlink (or a loop): looked at one component at a time.
    }
    let link = false;
    try {
      link = lstatSync(p).isSymbolicLink();
    } catch {
      // Nothing at p: its parent decides.
    }
    const parent = dirname(p);
    if (!link) {
      if (parent === p) return p;
      const real = walk(parent);
      return real === undefined ? undefined : join(real, basename(p));
    }
    if (++links > MAX_LINKS) return undefined;
    const from = walk(parent);
    return from === undefined ? undefined : walk(resolve(from, readlinkSync(p)));
  };
  return walk(resolve(path));
}

/** Whether `target` (a real path) is `root` or lies under it. */
export function isWithin(target: string, root: string): boolean {
  return target === root || target.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Why `file`, a file of the project at `projectDir`, cannot be read or written by init: it leads
 * outside the project through a symlink, or it is a hard link shared with another file (whose
 * content init would copy into the project). `undefined` when it is the project's own.
 */
export function outsideProject(file: string, projectDir: string): string | undefined {
  const root = realpathSync(projectDir);
  const target = realTarget(file);
  if (target === undefined)
    return `${file} is a symlink that does not resolve (a loop); remove it and run harness init again`;
  if (!isWithin(target, root))
    return `${file} leads outside the project, to ${target} (through a symlink); harness init writes only inside ${root}: remove the symlink (or replace it with a file of the project) and run harness init again`;
  try {
    const links = lstatSync(target).nlink;
    if (links > 1)
      return `${file} is a hard link shared with ${links - 1} other file(s), which may lie outside the project; replace it with a copy of its own (cp ${file} ${file}.copy && mv ${file}.copy ${file}) and run harness init again`;
  } catch {
    // Not there yet: init creates it.
  }
  return undefined;
}
