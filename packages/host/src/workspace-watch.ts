// Watching one file's content while a broker runs. The directory entry is watched, not the file:
// editors often write a new file and rename it over the old one, and a watch on the old file would
// then go quiet. A burst of events (truncate, write, rename, chmod) settles before the file is read,
// checks never overlap, and content whose digest is the one last seen is not handed on. An empty
// file is what an editor that truncates and then writes leaves between its two steps, and a busy
// machine can hold that moment longer than any settle time: it is handed on only if it stays empty.
import { type FSWatcher, lstatSync, realpathSync, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { workspaceDigest } from './packs-backend';

/** How long a burst of events on the watched file must be quiet before it is read. */
export const WORKSPACE_SETTLE_MS = 100;

/** How long an emptied file must stay empty, with no further event, before it is handed on. */
export const WORKSPACE_EMPTY_GRACE_MS = 2_000;

/** What a check read: the bytes and their digest, or why the file could not be read (`ENOENT`, …). */
export type FileContent = { ok: true; bytes: Buffer; digest: string } | { ok: false; reason: string };

/** Options of {@link watchFileContent}. */
export interface FileWatchOptions {
  /** The digest of the content already handled (what the broker loaded at start). */
  readonly seen: string;
  /** Told of each content that differs from the one last seen; checks wait for it. Must not throw. */
  readonly onContent: (content: FileContent) => Promise<void>;
  /** Told when a check found the content last seen (an identical write). */
  readonly onUnchanged?: (digest: string) => void;
  /** Told once when the file cannot be watched, or its watch stops; the file is then not followed. */
  readonly onWatchError: (message: string) => void;
  /** Default {@link WORKSPACE_SETTLE_MS}. */
  readonly settleMs?: number;
  /** Default {@link WORKSPACE_EMPTY_GRACE_MS}. */
  readonly emptyGraceMs?: number;
}

/** A running watch; `close()` stops it and waits for a check under way. Idempotent. */
export interface FileWatch {
  close(): Promise<void>;
}

/** The directory entries to watch for `file`: its own, and its target's when it is a symlink. */
function entriesOf(file: string): { dir: string; name: string }[] {
  const entries = [{ dir: dirname(file), name: basename(file) }];
  try {
    // A link into a dotfiles repository is edited at its target, which sits in another directory.
    if (lstatSync(file).isSymbolicLink()) {
      const target = realpathSync(file);
      entries.push({ dir: dirname(target), name: basename(target) });
    }
  } catch {
    // Gone or unreadable now: its own directory entry is still watched.
  }
  return entries;
}

/** Reads the file's content and its digest. */
export async function readContent(file: string): Promise<FileContent> {
  try {
    const bytes = await readFile(file);
    return { ok: true, bytes, digest: workspaceDigest(bytes) };
  } catch (error) {
    return { ok: false, reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
}

/**
 * Follows `file`'s content: after each settled burst of changes to its directory entry, reads it and
 * hands content that differs from the one last seen to `onContent`, one check at a time. Neither the
 * watch nor its timer keeps the process alive.
 */
export function watchFileContent(file: string, options: FileWatchOptions): FileWatch {
  const settleMs = options.settleMs ?? WORKSPACE_SETTLE_MS;
  const emptyGraceMs = options.emptyGraceMs ?? WORKSPACE_EMPTY_GRACE_MS;
  let seen = options.seen;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let stopped = false;
  const watchers: FSWatcher[] = [];

  // `quiet`: the first check, of whatever changed before the watch began; nobody wrote, so an
  // unchanged file is not reported.
  // `graced`: this check is the one after an empty read's grace, so an empty file is now handed on.
  const check = async (quiet: boolean, graced: boolean): Promise<void> => {
    const content = await readContent(file);
    const key = content.ok ? content.digest : `unreadable:${content.reason}`;
    if (key === seen) {
      if (content.ok && !quiet) options.onUnchanged?.(content.digest);
      return;
    }
    if (content.ok && content.bytes.length === 0 && !graced) {
      // The write that follows a truncate makes an event, which replaces this timer.
      timer = setTimeout(() => fire(quiet, true), emptyGraceMs);
      timer.unref();
      return;
    }
    seen = key;
    await options.onContent(content);
  };
  const fire = (quiet = false, graced = false): void => {
    timer = undefined;
    if (closed) return;
    // Events that arrive during a check are read once it is done, after they settle in turn.
    if (checking !== undefined) {
      again = true;
      return;
    }
    // `onContent` reports its own failures; a watch never ends the process it serves.
    checking = check(quiet, graced)
      .catch(() => undefined)
      .finally(() => {
        checking = undefined;
        if (again) {
          again = false;
          settle();
        }
      });
  };
  const settle = (): void => {
    if (closed) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => fire(), settleMs);
    timer.unref();
  };
  const stop = (message: string): void => {
    if (closed || stopped) return;
    stopped = true;
    for (const w of watchers.splice(0)) w.close();
    options.onWatchError(message);
  };

  const entries = entriesOf(file);
  for (const { dir, name } of entries) {
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (_event, changed) => {
        // Some platforms name no entry: then any change in the directory may be this file's.
        if (changed === null || changed === name) settle();
      });
    } catch (error) {
      stop(`cannot watch ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      break;
    }
    watcher.on('error', (error: NodeJS.ErrnoException) =>
      stop(`the watch of ${dir} stopped (${error.code ?? error.message})`),
    );
    watchers.push(watcher);
  }
  // An edit between the load at start and the watch's start made no event: look once now.
  if (!stopped) fire(true);

  return {
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      for (const w of watchers.splice(0)) w.close();
      await checking;
    },
  };
}
