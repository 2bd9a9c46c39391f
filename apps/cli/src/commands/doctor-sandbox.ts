// `harness doctor`'s sandbox row: which confinement mechanism works here, and what the workspace's
// sandbox_mode makes of it (docs/packs.md "Confinement").
import { detectSandbox } from '@harness/exec';

type Status = 'ok' | 'warn' | 'fail';

/** The sandbox_mode a workspace file declares (`preferred` when it says nothing or cannot be read). */
async function modeOf(workspaceFile: string | undefined): Promise<'required' | 'preferred' | 'off'> {
  if (workspaceFile === undefined) return 'preferred';
  const { loadWorkspace } = await import('@harness/workspace');
  const loaded = await loadWorkspace({ file: workspaceFile }, { probe: false });
  return loaded.ok ? loaded.workspace.sandbox.mode : 'preferred';
}

/** The sandbox check: the mechanism found (or what to install) under the workspace's sandbox_mode. */
export async function sandboxCheck(
  workspaceFile: string | undefined,
): Promise<{ status: Status; detail: string }> {
  const mode = await modeOf(workspaceFile);
  const found = detectSandbox();
  const mechanism = found.available
    ? `${found.mechanism === 'bwrap' ? `bubblewrap ${found.version ?? ''}`.trim() : 'sandbox-exec'} (${found.file})`
    : undefined;
  if (mode === 'off') {
    return {
      status: 'warn',
      detail: `sandbox_mode off: pack commands run unconfined${mechanism ? ` (${mechanism} is available)` : ''}`,
    };
  }
  if (found.available) {
    return {
      status: 'ok',
      detail: `${mechanism}: read commands and sandboxed packs run confined (sandbox_mode ${mode})`,
    };
  }
  if (mode === 'required') {
    return {
      status: 'fail',
      detail: `${found.reason}: packs with confined commands are left out (sandbox_mode required); ${found.hint}`,
    };
  }
  return {
    status: 'warn',
    detail: `${found.reason}: pack commands run unconfined (sandbox_mode preferred); ${found.hint}`,
  };
}
