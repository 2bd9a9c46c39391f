import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, resolve } from 'node:path';
import { ExecError, ExecErrorCode } from './errors';

/** The search path used when neither the caller nor the process has a `PATH`. */
export const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

// Sync fs calls on purpose: a handful of stat/access calls cost microseconds, while a round trip
// through libuv's thread pool per call would dominate the cost of spawning a small program.

/** Whether `path` is a directory (`false`: something else); `undefined` when nothing is there. */
export function isDirectory(path: string): boolean | undefined {
  try {
    // A PATH entry that does not hold the program is the common case (every entry before the one
    // that does): answered without an exception, whose construction costs several times the stat.
    return statSync(path, { throwIfNoEntry: false })?.isDirectory();
  } catch {
    return undefined;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Checks that `cwd` is an existing directory and returns it absolute. */
export function checkCwd(cwd: string): string {
  const absolute = resolve(cwd);
  const dir = isDirectory(absolute);
  if (dir !== true) {
    throw new ExecError(
      ExecErrorCode.cwd_not_found,
      `cwd ${JSON.stringify(cwd)} ${dir === false ? 'is not a directory' : 'does not exist'}; expected an existing directory. Create it or pass another cwd.`,
    );
  }
  return absolute;
}

/**
 * Resolves `command` (an `argv[0]`) to the absolute path of an executable file, the way `execvp`
 * would but against the caller's `PATH` only.
 *
 * A `command` containing `/` is taken relative to `cwd`. Otherwise each entry of `path` is tried
 * in order; empty and relative entries are skipped (POSIX reads them relative to the current
 * directory, which would let a file in the working directory shadow a real program). Throws {@link ExecError} `no_path`, `executable_not_found` or `not_executable`.
 */
export function resolveExecutable(
  command: string,
  path: string | undefined,
  cwd: string = process.cwd(),
): string {
  if (command === '' || command.includes('\0')) {
    throw new ExecError(
      ExecErrorCode.invalid_argv,
      `argv[0] ${JSON.stringify(command)} is not a program name; expected a non-empty string without NUL.`,
    );
  }
  if (command.includes('/')) {
    const file = isAbsolute(command) ? command : resolve(cwd, command);
    const dir = isDirectory(file);
    if (dir === undefined) {
      throw new ExecError(
        ExecErrorCode.executable_not_found,
        `executable ${JSON.stringify(command)} was not found (looked at ${file}); expected an existing executable file. Check the path.`,
      );
    }
    if (dir || !isExecutable(file)) {
      throw new ExecError(
        ExecErrorCode.not_executable,
        `executable ${JSON.stringify(command)} (${file}) is ${dir ? 'a directory' : 'not executable'}; expected a file with execute permission. Fix its mode (chmod +x) or the path.`,
      );
    }
    return file;
  }
  if (path === undefined) {
    throw new ExecError(
      ExecErrorCode.no_path,
      `cannot resolve executable ${JSON.stringify(command)}: env has no PATH and argv[0] has no "/". Nothing is inherited from this process's environment; pass env.PATH or an absolute argv[0].`,
    );
  }
  let notExecutable: string | undefined;
  for (const entry of path.split(delimiter)) {
    // Empty and relative entries ("", ".", "bin") name directories under the working directory,
    // where a command's own writes (or a checkout's files) could shadow a real program.
    if (!isAbsolute(entry)) continue;
    const file = resolve(entry, command);
    const dir = isDirectory(file);
    if (dir === undefined) continue;
    if (!dir && isExecutable(file)) return file;
    notExecutable ??= file;
  }
  if (notExecutable !== undefined) {
    throw new ExecError(
      ExecErrorCode.not_executable,
      `executable ${JSON.stringify(command)} was found at ${notExecutable} but is not an executable file; expected execute permission. Fix its mode (chmod +x) or PATH.`,
    );
  }
  throw new ExecError(
    ExecErrorCode.executable_not_found,
    `executable ${JSON.stringify(command)} was not found on PATH (${path}); expected an installed program. Install it, or add its directory to env.PATH.`,
  );
}
