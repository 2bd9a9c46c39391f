import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { formatIssue, type LoadOptions, loadPacks, type PackSet } from '../src/index';

// One directory for every file a worker runs (they share this module): removed when the worker exits.
const dir = tempDir('packs-test-');
process.once('exit', () => dir.cleanup());

/** A directory for workspaces written inline by the test files (removed when their worker exits). */
export const workDir = dir.path;

/** Loads inline YAML as `workspace.yaml` (a relative name, so messages are stable); returns the formatted issues on failure. */
export async function loadErrors(text: string, options: LoadOptions = {}): Promise<string[]> {
  const r = await loadPacks({ text, file: 'workspace.yaml' }, { probe: false, ...options });
  if (r.ok) throw new Error('expected the load to fail, but it succeeded');
  return r.issues.map(formatIssue);
}

/** Loads inline YAML placed in the test's temp dir (so packs run there); throws with the issues on failure. */
export async function loadOk(text: string, options: LoadOptions = {}): Promise<PackSet> {
  const r = await loadPacks({ text, file: join(workDir, 'workspace.yaml') }, { probe: false, ...options });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.packs;
}

/** A one-pack workspace around the given command entries (YAML text, indented as list items under `commands:`). */
export function onePack(commands: string, packExtra = ''): string {
  return `command_packs:
  - id: p
${packExtra}    commands:
${commands}`;
}
