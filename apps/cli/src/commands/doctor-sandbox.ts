// `harness doctor`'s sandbox row: which confinement mechanism works here, and what the workspace's
// sandbox_mode makes of it (docs/packs.md "Confinement"). Where AppArmor blocks bubblewrap (Ubuntu
// 23.10+, 24.04 LTS), the row says so and carries the profile to install; `--fix` installs it as root.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type AppArmorUsernsRestriction,
  detectSandbox,
  readAppArmorUsernsSysctl,
  recognizeAppArmorUsernsRestriction,
  type SandboxDetection,
} from '@harness/exec';

type Status = 'ok' | 'warn' | 'fail';

/** The sandbox row, and the AppArmor restriction behind a failure when that is what it is. */
export interface SandboxRow {
  status: Status;
  detail: string;
  apparmor?: AppArmorUsernsRestriction;
}

/** The sandbox_mode a workspace file declares (`preferred` when it says nothing or cannot be read). */
async function modeOf(workspaceFile: string | undefined): Promise<'required' | 'preferred' | 'off'> {
  if (workspaceFile === undefined) return 'preferred';
  const { loadWorkspace } = await import('@harness/workspace');
  const loaded = await loadWorkspace({ file: workspaceFile }, { probe: false });
  return loaded.ok ? loaded.workspace.sandbox.mode : 'preferred';
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** The AppArmor restriction behind a failed bubblewrap probe, if that is what failed. */
function appArmorBehind(
  found: SandboxDetection,
  sysctl: string | undefined,
): AppArmorUsernsRestriction | undefined {
  if (found.available || found.mechanism !== 'bwrap' || found.file === undefined) return undefined;
  return recognizeAppArmorUsernsRestriction({
    sysctl,
    stderr: found.failure ?? '',
    bwrap: realPath(found.file),
  });
}

/**
 * The sandbox check: the mechanism found (or what to install) under the workspace's sandbox_mode.
 * `probe` is what this machine answers (the sandbox probe, the AppArmor sysctl), given by tests.
 */
export async function sandboxCheck(
  workspaceFile: string | undefined,
  probe: { detection: SandboxDetection; sysctl: string | undefined } = {
    detection: detectSandbox(),
    sysctl: readAppArmorUsernsSysctl(),
  },
): Promise<SandboxRow> {
  const mode = await modeOf(workspaceFile);
  const found = probe.detection;
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
  const apparmor = appArmorBehind(found, probe.sysctl);
  const consequence =
    mode === 'required'
      ? 'packs with confined commands are left out (sandbox_mode required)'
      : 'pack commands run unconfined (sandbox_mode preferred)';
  if (apparmor !== undefined) {
    return {
      status: mode === 'required' ? 'fail' : 'warn',
      detail: `AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1), so ${apparmor.bwrap} cannot start a sandbox (${apparmor.failure}): ${consequence}; as root, install the AppArmor profile for ${apparmor.bwrap} printed below as ${apparmor.profileFile} and load it (${apparmor.load.join(' ')}), or run harness doctor --fix as root`,
      apparmor,
    };
  }
  return {
    status: mode === 'required' ? 'fail' : 'warn',
    detail: `${found.reason}: ${consequence}; ${found.hint}`,
  };
}

/** The lines printed below the sandbox row: the profile as a shell snippet to paste as root. */
export function appArmorInstructions(apparmor: AppArmorUsernsRestriction): string[] {
  return [
    `# The AppArmor profile for ${apparmor.bwrap}: as root, write it to ${apparmor.profileFile} and load it`,
    `# (or run: sudo harness doctor --fix)`,
    `sudo tee ${apparmor.profileFile} > /dev/null <<'EOF'`,
    ...apparmor.profile.replace(/\n$/, '').split('\n'),
    'EOF',
    `sudo ${apparmor.load.join(' ')}`,
  ];
}

// apparmor_parser lives in sbin, which a non-login root shell may lack on PATH.
const PARSER_PLACES = ['/usr/sbin/apparmor_parser', '/sbin/apparmor_parser'];

/**
 * `harness doctor --fix` for the AppArmor restriction: as root, writes the profile (unless a
 * different file is there already) and loads it with apparmor_parser. `options` are what this
 * machine answers (whether this is root, which apparmor_parser), given by tests.
 */
export function fixAppArmor(
  apparmor: AppArmorUsernsRestriction,
  options: { root: boolean; parser?: string } = { root: process.getuid?.() === 0 },
): { status: Status; detail: string } {
  const file = apparmor.profileFile;
  if (!options.root) {
    return {
      status: 'fail',
      detail: `writing ${file} needs root: run sudo harness doctor --fix, or the commands printed below`,
    };
  }
  if (!existsSync(dirname(file))) {
    return { status: 'fail', detail: `${dirname(file)} does not exist: is AppArmor installed?` };
  }
  if (existsSync(file) && readFileSync(file, 'utf8') !== apparmor.profile) {
    return {
      status: 'fail',
      detail: `${file} exists and differs from the profile below: not overwritten; compare them, then remove it and run harness doctor --fix again`,
    };
  }
  if (!existsSync(file)) writeFileSync(file, apparmor.profile, { mode: 0o644 });
  const parser =
    options.parser ?? PARSER_PLACES.find((p) => existsSync(p)) ?? apparmor.load[0] ?? 'apparmor_parser';
  try {
    execFileSync(parser, apparmor.load.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
    return {
      status: 'fail',
      detail: `wrote ${file}, but ${parser} ${apparmor.load.slice(1).join(' ')} failed: ${stderr || (error as Error).message}`,
    };
  }
  return {
    status: 'ok',
    detail: `wrote ${file} (the profile for ${apparmor.bwrap}) and loaded it (${parser} ${apparmor.load.slice(1).join(' ')}); run harness doctor again to see bubblewrap start`,
  };
}
