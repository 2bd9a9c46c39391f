// Who may stand behind a broker socket. Anyone who can write the socket's directory can move the
// broker's socket aside and bind their own, then read every call's arguments and forge every
// answer. So a client connects only to a socket owned by this user (or root), in a directory that
// is not a symlink, is ours (or root's) and is not writable by group or others. The host checks
// the directory the same way before it binds.
import { lstat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Why the socket at `socketPath` must not be used, or `undefined` when it may (or nothing is there:
 * connecting then fails as unreachable). Asynchronous on purpose: on Node 20 a synchronous stat of
 * a socket leaves later module resolution un-realpathed (better-sqlite3 then fails to load).
 */
export async function socketProblem(socketPath: string): Promise<string | undefined> {
  const me = process.getuid?.();
  if (me === undefined) return undefined;
  const dir = dirname(socketPath);
  try {
    const d = await lstat(dir);
    if (d.isSymbolicLink()) return `${dir} is a symbolic link`;
    if (d.uid !== me && d.uid !== 0) return `${dir} belongs to user ${d.uid}, not to you (${me})`;
    if ((d.mode & 0o022) !== 0) {
      const who = (d.mode & 0o002) !== 0 ? 'every user' : 'its group';
      return `${dir} is writable by ${who} (mode ${(d.mode & 0o777).toString(8)})`;
    }
    const s = await lstat(socketPath);
    if (s.uid !== me && s.uid !== 0) return `${socketPath} belongs to user ${s.uid}, not to you (${me})`;
  } catch {
    return undefined;
  }
  return undefined;
}
