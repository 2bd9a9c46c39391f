// Pack commands through @harness/packs: workspace, grants, governance, approvals, runner, audit.
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSpawner } from '@harness/exec';
import {
  auditEvent,
  type CredentialSource,
  credentialsFrom,
  formatIssue,
  listCommands,
  loadWorkspace,
  resolveGrants,
  type Workspace,
} from '@harness/packs';
import type { ManifestRow } from '@harness/protocol';
import { BUILTIN_IDS } from './builtins';
import { HostError, HostErrorCode } from './errors';
import type { PackBackend } from './host';
import { knownInstances, recordInstance } from './instance-registry';
import { type PackBackendState, runPackCall } from './pack-call';
import { openRunningLog } from './running';
import type { ScopeWorkspace } from './scope';

/**
 * The optional credentials file of an instance: `{ "<name>": "<value>" }`. It must be mode 0600 (or
 * stricter): a file that its group or others may read or write is refused, as ssh refuses such keys.
 */
export const CREDENTIALS_FILE = 'credentials.json';

/** Reads an instance's credentials file; refuses one its group or others may read or write. */
export function readCredentials(instanceDir: string | undefined): CredentialSource | undefined {
  if (instanceDir === undefined) return undefined;
  const file = join(instanceDir, CREDENTIALS_FILE);
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted at the path must not hang the broker's start.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HostError(
      HostErrorCode.instance_invalid,
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}`,
      { cause: error },
    );
  }
  let text: string;
  try {
    // The mode is checked on the open descriptor, so the file read is the file checked.
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw new HostError(
        HostErrorCode.instance_invalid,
        `${file} is not a regular file; remove it or replace it with one`,
      );
    }
    const mode = st.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new HostError(
        HostErrorCode.instance_invalid,
        `${file} has mode ${mode.toString(8).padStart(4, '0')}: its group or other users may read or write it, so its credentials are not loaded. Expected mode 0600; fix with: chmod 600 ${file}`,
      );
    }
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch {
    // Never echo the file: it holds secrets.
    throw new HostError(
      HostErrorCode.instance_invalid,
      `${file} is not a JSON object of credential names to values`,
    );
  }
  if (
    values === null ||
    typeof values !== 'object' ||
    Array.isArray(values) ||
    !Object.values(values).every((v) => typeof v === 'string')
  ) {
    throw new HostError(HostErrorCode.instance_invalid, `${file} must map credential names to string values`);
  }
  return credentialsFrom(values as Record<string, string>);
}

/** Loads a workspace file through @harness/packs and adapts it for the host. */
export async function loadPackBackend(
  workspaceFile: string,
  instanceDir?: string,
): Promise<{ workspace: Workspace; backend: PackBackend; scopeWorkspace: ScopeWorkspace }> {
  const credentials = readCredentials(instanceDir);
  const workspace = await loadHostWorkspace(workspaceFile, instanceDir, credentials);
  const rows = manifestRows(workspace);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const running = instanceDir ? openRunningLog(instanceDir) : undefined;
  // A broker's backend (one with an instance) starts its commands through a spawner, so the broker
  // itself never forks (docs/host.md, "Running pack commands").
  const spawner = instanceDir ? createSpawner() : undefined;

  // The sessions of the commands running now, which their broker must not serve.
  const sessions = new Set<number>();
  const state: PackBackendState = { workspace, credentials, byId, running, spawner, sessions, instanceDir };
  const backend: PackBackend = {
    rows: () => rows,
    runningSessions: () => sessions,
    async close() {
      running?.close();
      await spawner?.close();
    },
    action(id) {
      return auditEvent(workspace, id)?.action ?? `command:call:${id.replace('.', ':')}`;
    },
    auditPayload(id) {
      const payload = auditEvent(workspace, id)?.payload;
      return payload ? { ...payload } : { provider: 'command', member: id };
    },
    run(id, args, ctx) {
      return runPackCall(state, id, args, ctx);
    },
  };
  return { workspace, backend, scopeWorkspace: scopeWorkspaceOf(workspace, byId) };
}

/** Loads the workspace file for the host; throws a `workspace_invalid` HostError listing its issues. */
async function loadHostWorkspace(
  workspaceFile: string,
  instanceDir: string | undefined,
  credentials: CredentialSource | undefined,
): Promise<Workspace> {
  // Every instance of this user is hidden from confined commands, this one first.
  const hide = instanceDir === undefined ? knownInstances() : recordInstance(instanceDir);
  const loaded = await loadWorkspace(
    { file: workspaceFile },
    { reservedCommandIds: [...BUILTIN_IDS], hide, ...(credentials ? { credentials } : {}) },
  );
  if (!loaded.ok) {
    throw new HostError(
      HostErrorCode.workspace_invalid,
      `the workspace ${workspaceFile} does not load:\n${loaded.issues.map(formatIssue).join('\n')}`,
    );
  }
  return loaded.workspace;
}

/** The manifest row of each pack command (global scope, no outputs). */
function manifestRows(workspace: Workspace): ManifestRow[] {
  const rows: ManifestRow[] = listCommands(workspace).map((r) => ({
    id: r.id,
    title: r.title,
    help: r.help,
    inputs: r.inputs,
    outputs: [],
    effect: r.effect,
    scope: 'global',
    timeoutMs: r.timeoutMs,
    ...(r.ifc ? { ifc: r.ifc as ManifestRow['ifc'] & object } : {}),
  }));
  for (const row of rows) {
    if (row.outputs?.length === 0) delete row.outputs;
  }
  return rows;
}

/** The workspace's agents, grants and effects as the host's scope checks read them. */
function scopeWorkspaceOf(workspace: Workspace, byId: ReadonlyMap<string, ManifestRow>): ScopeWorkspace {
  return {
    agentCommands: (agent) => workspace.agents.find((a) => a.id === agent)?.commands,
    agentIds: () => workspace.agents.map((a) => a.id),
    resolveGrants(grants) {
      const r = resolveGrants(workspace, grants);
      return r.ok
        ? { ok: true, commands: r.commands }
        : { ok: false, message: r.issues.map((i) => i.message).join('; ') };
    },
    effectOf: (id) => byId.get(id)?.effect,
  };
}
