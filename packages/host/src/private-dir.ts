// The directory a broker socket lives in decides who can replace the socket: anyone who may write
// there can move ours aside and bind their own, then read every call's arguments and forge every
// answer. So a socket is bound only in a directory that is ours (or root's), not a symlink and not
// writable by group or others. (Clients check the same before connecting: @harness/protocol/client.)
import { lstatSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { HostError, HostErrorCode } from './errors';

const uid = (): number | undefined => process.getuid?.();

/** Why `dir` is not private to this user, or `undefined` when it is (or the platform has no uids). */
export function privateDirProblem(dir: string): string | undefined {
  const me = uid();
  if (me === undefined) return undefined;
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    return `${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (stat.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!stat.isDirectory()) return `${dir} is not a directory`;
  if (stat.uid !== me && stat.uid !== 0) return `${dir} belongs to user ${stat.uid}, not to you (${me})`;
  if ((stat.mode & 0o022) !== 0)
    return `${dir} is writable by ${(stat.mode & 0o002) !== 0 ? 'every user' : 'its group'} (mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

/**
 * Creates `dir` (mode 0700) when it is missing, else checks that it is private to this user: not a
 * symlink, owned by us (or root), not writable by group or others. Throws `queue_unsafe` otherwise.
 */
export function ensurePrivateDir(dir: string): void {
  try {
    mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new HostError(
        HostErrorCode.queue_unsafe,
        `cannot create the socket directory ${dir}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }
  const problem = privateDirProblem(dir);
  if (problem !== undefined) {
    throw new HostError(
      HostErrorCode.queue_unsafe,
      `refusing to use the socket directory: ${problem}; another user could replace the broker's socket there. Use a directory only you can write (chmod 700, owned by you), or remove it and let it be created`,
    );
  }
}
