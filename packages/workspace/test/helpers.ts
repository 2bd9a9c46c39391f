import { join } from 'node:path';
import { formatIssue, type LoadOptions } from '@harness/packs';
import { tempDir } from '@harness/test-utils';
import { loadWorkspace, type Workspace } from '../src/index';

// One directory for every file a worker runs (they share this module): removed when the worker exits.
const dir = tempDir('workspace-test-');
process.once('exit', () => dir.cleanup());

/** A directory for workspaces written inline by the test files (removed when their worker exits). */
export const workDir = dir.path;

/** Loads inline YAML as `workspace.yaml` (a relative name, so messages are stable); returns the formatted issues on failure. */
export async function loadErrors(text: string, options: LoadOptions = {}): Promise<string[]> {
  const r = await loadWorkspace({ text, file: 'workspace.yaml' }, { probe: false, ...options });
  if (r.ok) throw new Error('expected the load to fail, but it succeeded');
  return r.issues.map(formatIssue);
}

/** Loads inline YAML placed in the test's temp dir (so packs run there); throws with the issues on failure. */
export async function loadOk(text: string, options: LoadOptions = {}): Promise<Workspace> {
  const r = await loadWorkspace(
    { text, file: join(workDir, 'workspace.yaml') },
    { probe: false, ...options },
  );
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.workspace;
}

/** A one-pack workspace around the given command entries (YAML text, indented as list items under `commands:`). */
export function onePack(commands: string, packExtra = ''): string {
  return `command_packs:
  - id: p
${packExtra}    commands:
${commands}`;
}
