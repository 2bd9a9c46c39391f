// Writes a plan's files all or none: each new text goes to a temporary file beside its target first;
// only when every one is written are they renamed into place. A failure before that removes the
// temporary files and the directories made for them, so nothing of the plan is left behind.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../errors';
import type { FileChange } from './plan';
import { outsideProject } from './where';

interface Staged {
  readonly temp: string;
  readonly target: string;
}

/** Writes every `create` and `update` of `changes`; returns how many files it wrote. */
export function applyChanges(changes: readonly FileChange[]): number {
  const pending = changes.filter((c) => c.action === 'create' || c.action === 'update');
  const staged: Staged[] = [];
  const madeDirs: string[] = [];
  for (const change of pending) {
    try {
      staged.push(stage(change, madeDirs));
    } catch (error) {
      for (const s of staged) rmSync(s.temp, { force: true });
      for (const dir of madeDirs.reverse()) rmSync(dir, { recursive: true, force: true });
      throw new CliError(
        'config',
        `nothing written: ${change.path} cannot be written (${(error as Error).message}); fix that and run harness init again`,
        { cause: error },
      );
    }
  }
  for (const s of staged) renameSync(s.temp, s.target);
  return staged.length;
}

/** Writes `change`'s text to a temporary file in its target's directory, with the target's mode. */
function stage(change: FileChange, madeDirs: string[]): Staged {
  // Checked again here: a symlink put in place since the plan was made is not followed out.
  const away = change.within === undefined ? undefined : outsideProject(change.path, change.within);
  if (away !== undefined) throw new Error(away);
  // A config that is a symlink (dotfiles kept elsewhere) is written where it points.
  const target = existsSync(change.path) ? realpathSync(change.path) : change.path;
  const made = mkdirSync(dirname(target), {
    recursive: true,
    ...(change.mode === undefined ? {} : { mode: 0o700 }),
  });
  if (made !== undefined) madeDirs.push(made);
  const temp = join(dirname(target), `.${basename(target)}.harness-init-${process.pid}.tmp`);
  writeFileSync(temp, change.after, { flag: 'wx', mode: change.mode ?? 0o666 });
  // The config keeps its mode (a 0600 file stays private); a new file gets the umask's.
  if (change.mode !== undefined) chmodSync(temp, change.mode);
  else if (existsSync(target)) chmodSync(temp, statSync(target).mode & 0o7777);
  return { temp, target };
}
