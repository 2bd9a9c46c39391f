// What `harness init` wrote (or a person accepted) as each project's workspace, recorded outside
// every project: `$XDG_STATE_HOME/harness/init/<SHA-256 of the workspace's real path>.json` holding
// that path and the SHA-256 of the text. A repository can ship `.harness/workspace.yaml` with any
// content, a forged "Written by harness init" comment included, so what the file says of itself
// proves nothing; only this record does. The directory is among the paths every confined command
// is denied (harnessHiddenPaths in @harness/packs), so a command the agent runs cannot forge it.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** How the recorded text came to be trusted: init wrote it, or a person kept it after review. */
export type RecordedBy = 'written' | 'accepted';

/** The record of one workspace file. */
export interface WorkspaceRecord {
  /** The workspace file's real path. */
  readonly workspace: string;
  /** SHA-256 (hex) of the text last written or accepted. */
  readonly sha256: string;
  readonly by: RecordedBy;
}

/** SHA-256 of `text` as UTF-8, in hex. */
export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The directory of the records, as this environment places it. */
export function recordDir(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const state = env.XDG_STATE_HOME;
  const stateHome = state !== undefined && isAbsolute(state) ? state : join(home, '.local', 'state');
  return join(stateHome, 'harness', 'init');
}

export const recordFile = (dir: string, workspace: string): string => join(dir, `${sha256(workspace)}.json`);

/** The record of the workspace at real path `workspace`; `undefined` when none (or unreadable). */
export function readRecord(dir: string, workspace: string): WorkspaceRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(recordFile(dir, workspace), 'utf8'));
  } catch {
    return undefined;
  }
  const r = raw as Partial<WorkspaceRecord> | null;
  if (r === null || typeof r !== 'object') return undefined;
  if (r.workspace !== workspace || typeof r.sha256 !== 'string') return undefined;
  return { workspace, sha256: r.sha256, by: r.by === 'accepted' ? 'accepted' : 'written' };
}

/** Records `text` as the trusted workspace at real path `workspace` (a new file renamed into place). */
export function writeRecord(dir: string, workspace: string, text: string, by: RecordedBy): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = recordFile(dir, workspace);
  const temp = `${file}.${process.pid}.tmp`;
  const record: WorkspaceRecord = { workspace, sha256: sha256(text), by };
  try {
    writeFileSync(temp, `${JSON.stringify({ ...record, at: new Date().toISOString() })}\n`, {
      mode: 0o600,
    });
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}
