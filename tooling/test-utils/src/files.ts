// Files as the tests make them.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary directory; `cleanup()` removes it. */
export function tempDir(prefix = 'harness-test-', parent = tmpdir()): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(parent, prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Replaces `file` as an editor or a recipe's `cp` does: `text` written to a sibling (`<file>.edit`),
 * then renamed over it, so a reader never sees half of it and a watcher sees one new file.
 */
export function replaceFile(file: string, text: string): void {
  const next = `${file}.edit`;
  writeFileSync(next, text);
  renameSync(next, file);
}
