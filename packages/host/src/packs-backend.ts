// Pack commands through @harness/packs: workspace, grants, governance, approvals, runner, audit.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSpawner, type Spawner } from '@harness/exec';
import { type CredentialSource, credentialsFrom, formatIssue, listCommands } from '@harness/packs';
import type { ManifestRow } from '@harness/protocol';
import {
  auditEvent,
  type LoadResult,
  loadWorkspace,
  resolveGrants,
  type Workspace,
} from '@harness/workspace';
import { BUILTIN_IDS } from './builtins';
import { HostError, HostErrorCode } from './errors';
import type { PackBackend } from './host';
import { knownInstances, recordInstance } from './instance-registry';
import type { ToolNotices } from './notify/tools';
import { type PackBackendState, runPackCall } from './pack-call';
import { openRunningLog, type RunningLog } from './running';
import type { ScopeWorkspace } from './scope';
import { type PinStore, ServerBackend, ServerPool } from './servers/backend';
import { StartingSpawns } from './starting-spawns';

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

/**
 * What a broker's pack backends share for the broker's whole life, whichever workspace each was
 * loaded from: the running records, the spawner, and the sessions of the commands running now (a
 * command started before a reload of the workspace is still one whose connections are refused).
 */
export interface PackRuntime {
  readonly running: RunningLog | undefined;
  readonly spawner: Spawner | undefined;
  readonly sessions: Set<number>;
  /** The commands being started whose session is not on `sessions` yet. */
  readonly starting: StartingSpawns;
  /** The clients of the workspace's MCP servers, kept across reloads (docs/servers.md). */
  readonly servers: ServerPool;
  /** Where the servers' accepted definitions are read (the instance's store); none: nothing is accepted. */
  readonly pins: PinStore | undefined;
  /** Told of each server tool definition this broker first records as quarantined (docs/notify.md). */
  readonly toolNotices: ToolNotices | undefined;
}

/** A workspace loaded for the host. */
export interface LoadedPackBackend {
  workspace: Workspace;
  backend: PackBackend;
  scopeWorkspace: ScopeWorkspace;
  /** {@link workspaceDigest} of the bytes that were loaded. */
  digest: string;
  /** What the backend runs commands through: a reload of the workspace borrows it. */
  runtime: PackRuntime;
  /** The workspace's MCP servers, when it declares any. */
  servers: ServerBackend | undefined;
}

/** Options of {@link loadPackBackend}. */
export interface LoadPackOptions {
  /** The workspace file's bytes, already read: loaded as they are, so their digest is the one served. */
  readonly bytes?: Uint8Array;
  /**
   * The runtime of the backend loaded first, borrowed rather than opened: this backend's `close()`
   * then leaves it open (its owner closes it once no call is in flight on any of them).
   */
  readonly runtime?: PackRuntime;
  /**
   * The store a new runtime reads the accepted definitions of server tools from (the instance's);
   * a borrowed runtime keeps its own. Without one every pinned server's tools stay quarantined.
   */
  readonly pins?: PinStore;
  /** Told of each definition a new runtime first records as quarantined; a borrowed runtime keeps its own. */
  readonly toolNotices?: ToolNotices;
}

/** A workspace that loads for the host, or every issue that stops it, first first. */
export type PackBackendRead =
  | ({ ok: true } & LoadedPackBackend)
  | { ok: false; issues: Extract<LoadResult, { ok: false }>['issues'] };

/** The identity of a workspace file's content: the hex SHA-256 of its bytes. */
export function workspaceDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Loads a workspace file through @harness/packs and adapts it for the host. Throws a
 * `workspace_invalid` HostError listing every issue (and the `instance_invalid` one of a
 * credentials file that cannot be used).
 */
export async function loadPackBackend(
  workspaceFile: string,
  instanceDir?: string,
  options: LoadPackOptions = {},
): Promise<LoadedPackBackend> {
  const read = await readPackBackend(workspaceFile, instanceDir, options);
  if (!read.ok) {
    throw new HostError(
      HostErrorCode.workspace_invalid,
      `the workspace ${workspaceFile} does not load:\n${read.issues.map(formatIssue).join('\n')}`,
    );
  }
  const { ok: _ok, ...loaded } = read;
  return loaded;
}

/**
 * {@link loadPackBackend}, with a workspace that does not load answered as data: its issues. A
 * credentials file that cannot be used is still thrown (it is the instance's, not the workspace's).
 */
export async function readPackBackend(
  workspaceFile: string,
  instanceDir: string | undefined,
  options: LoadPackOptions = {},
): Promise<PackBackendRead> {
  const credentials = readCredentials(instanceDir);
  const bytes = options.bytes ?? (await readBytes(workspaceFile));
  const loaded = await loadHostWorkspace(workspaceFile, bytes, instanceDir, credentials);
  if (!loaded.ok) return loaded;
  const workspace = loaded.workspace;
  const rows = manifestRows(workspace);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const owned = options.runtime === undefined;
  const runtime = options.runtime ?? openRuntime(instanceDir, options.pins, options.toolNotices);
  const { running, spawner, sessions, starting } = runtime;
  const state: PackBackendState = {
    workspace,
    credentials,
    byId,
    running,
    spawner,
    sessions,
    starting,
    instanceDir,
  };
  const servers =
    workspace.servers.length === 0
      ? undefined
      : new ServerBackend(
          workspace,
          credentials,
          instanceDir,
          runtime.servers,
          runtime.pins,
          runtime.toolNotices,
        );
  const packs: PackBackend = {
    rows: () => rows,
    runningSessions: () => sessions,
    async close() {
      if (!owned) return;
      running?.close();
      await spawner?.close();
      await runtime.servers.close();
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
  const backend = servers === undefined ? packs : withServers(packs, servers);
  return {
    ok: true,
    workspace,
    backend,
    scopeWorkspace: scopeWorkspaceOf(workspace, byId),
    // Without `bytes` the first read failed and the loader's own read did not: read what it read.
    digest: workspaceDigest(bytes ?? (await readFile(workspaceFile))),
    runtime,
    servers,
  };
}

/**
 * The packs' backend with the MCP servers' tools beside them: one backend the command layer sees,
 * each call routed by its id's container (a server id is never a pack id, SV-01).
 */
function withServers(packs: PackBackend, servers: ServerBackend): PackBackend {
  let joined:
    | { packs: readonly ManifestRow[]; servers: readonly ManifestRow[]; rows: ManifestRow[] }
    | undefined;
  return {
    rows() {
      const p = packs.rows();
      const s = servers.rows();
      // The same array until either side changes: the host's listing (and its etag) is cached on it.
      if (joined?.packs !== p || joined.servers !== s) joined = { packs: p, servers: s, rows: [...p, ...s] };
      return joined.rows;
    },
    runningSessions: () => packs.runningSessions?.() ?? new Set(),
    ready: (id) => servers.ready(id),
    quarantined: () => servers.quarantined(),
    unknown: (id) => (servers.owns(id) ? servers.unavailable(id) : undefined),
    action: (id) => (servers.owns(id) ? servers.action(id) : packs.action(id)),
    auditPayload: (id) => (servers.owns(id) ? servers.auditPayload(id) : packs.auditPayload(id)),
    run: (id, args, ctx) => (servers.owns(id) ? servers.run(id, args, ctx) : packs.run(id, args, ctx)),
    async close() {
      servers.flushLogs();
      await packs.close?.();
    },
  };
}

/** A new runtime: with an instance (a broker's backend), a running log and a spawner. */
function openRuntime(
  instanceDir: string | undefined,
  pins: PinStore | undefined,
  toolNotices: ToolNotices | undefined,
): PackRuntime {
  return {
    running: instanceDir ? openRunningLog(instanceDir) : undefined,
    // A broker's backend starts its commands through a spawner, so the broker itself never forks
    // (docs/host.md, "Running pack commands").
    spawner: instanceDir ? createSpawner() : undefined,
    sessions: new Set<number>(),
    starting: new StartingSpawns(),
    servers: new ServerPool(),
    pins,
    toolNotices,
  };
}

/** The workspace file's bytes; undefined when it cannot be read (the load then says why). */
async function readBytes(file: string): Promise<Uint8Array | undefined> {
  try {
    return await readFile(file);
  } catch {
    return undefined;
  }
}

/** Loads the workspace for the host: the bytes given, else the file (whose read error is an issue). */
export async function loadHostWorkspace(
  workspaceFile: string,
  bytes: Uint8Array | undefined,
  instanceDir: string | undefined,
  credentials: CredentialSource | undefined,
): Promise<LoadResult> {
  // Every instance of this user is hidden from confined commands, this one first.
  const hide = instanceDir === undefined ? knownInstances() : recordInstance(instanceDir);
  const source =
    bytes === undefined
      ? { file: workspaceFile }
      : { file: workspaceFile, text: Buffer.from(bytes).toString('utf8') };
  return loadWorkspace(source, {
    reservedCommandIds: [...BUILTIN_IDS],
    hide,
    // The person's user.name and user.email, for the standard git pack's commits (docs/standard-packs.md).
    gitIdentity: true,
    ...(credentials ? { credentials } : {}),
  });
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
    // A call held for approval may wait `approval_wait` before its run starts: a client waits for both.
    timeoutMs: r.timeoutMs + (r.approvalWaitMs ?? 0),
    ...(r.ifc ? { ifc: r.ifc as ManifestRow['ifc'] & object } : {}),
    ...(r.telemetryArgs ? { telemetryArgs: true } : {}),
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
    agentServers: (agent) => workspace.agents.find((a) => a.id === agent)?.servers ?? [],
    agentBuiltins: (agent) => workspace.agents.find((a) => a.id === agent)?.builtins ?? true,
    agentIds: () => workspace.agents.map((a) => a.id),
    resolveGrants(grants) {
      const r = resolveGrants(workspace, grants);
      return r.ok
        ? { ok: true, commands: r.commands, servers: r.servers }
        : { ok: false, message: r.issues.map((i) => i.message).join('; ') };
    },
    effectOf: (id) => byId.get(id)?.effect,
  };
}
