import { closeSync, openSync, readSync } from 'node:fs';

// One buffer for every read: a stat line is a few hundred bytes, and the reads are synchronous.
let buffer = Buffer.allocUnsafe(4096);

/**
 * The fields of `/proc/<pid>/stat` from the state on (field 3, so field N is at index N - 3), or
 * `undefined` when the process does not exist (or there is no /proc).
 *
 * Read with open/read/close into a held buffer: `readFileSync` on a procfs file (which reports size
 * 0) allocates and reads a 64 KiB chunk at a time, about ten times the cost, and a broker reads one
 * per pack command it starts.
 */
export function procStatFields(pid: number | string): string[] | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
  } catch {
    return undefined;
  }
  let length = 0;
  try {
    for (;;) {
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
  } catch {
    // The process exited between the open and the read.
    return undefined;
  } finally {
    closeSync(fd);
  }
  const stat = buffer.toString('latin1', 0, length);
  // The command name (field 2) may hold spaces and parentheses; the fields after its last `)` are plain.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
