// The instance directories of this user that a host has created or opened, one absolute path a line
// in `$XDG_STATE_HOME/harness/instances` (`~/.local/state/harness/instances`), so every confined
// command hides all of them — their stores, tokens, credentials and broker sockets — and not only
// the instance that runs it (docs/security.md).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** The registry file, as this environment places it. */
export function instanceRegistryFile(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const state = env.XDG_STATE_HOME;
  const stateHome = state !== undefined && isAbsolute(state) ? state : join(homedir(), '.local', 'state');
  return join(stateHome, 'harness', 'instances');
}

/** The instance directories recorded that still exist. */
export function knownInstances(file: string = instanceRegistryFile()): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const dirs = text.split('\n').filter((line) => isAbsolute(line));
  return [...new Set(dirs)].filter((dir) => existsSync(dir));
}

/**
 * Records `dir` (once) and returns every recorded instance that exists, `dir` included. Best effort:
 * a registry that cannot be written (a read-only home) costs only the hiding of this instance from
 * the confined commands of the others; the instance in use is always hidden from its own.
 */
export function recordInstance(dir: string, file: string = instanceRegistryFile()): string[] {
  const abs = resolve(dir);
  let lines: string[] = [];
  try {
    lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => isAbsolute(line));
  } catch {
    // No registry yet.
  }
  const live = [...new Set(lines)].filter((line) => existsSync(line));
  const known = [...live.filter((line) => line !== abs), abs];
  if (abs.includes('\n') || (live.includes(abs) && live.length === lines.length)) return known;
  // Rewritten whole (dead entries pruned) beside the file and renamed over it: never half-written.
  const staging = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(staging, `${known.join('\n')}\n`, { mode: 0o600 });
    renameSync(staging, file);
  } catch {
    // See above: nothing the caller can do about it, nothing lost.
    rmSync(staging, { force: true });
  }
  return known;
}
