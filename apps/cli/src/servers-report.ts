// What `harness servers list` and `harness doctor` say about a workspace's upstream MCP servers:
// each one started through the broker's own server backend (the same clients, listings, rows and
// log writer a broker uses), read once, and closed before the answer is returned, so no server
// process outlives the command.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commandLine } from '@harness/config/instance';
import { detectSandbox } from '@harness/exec';
import type { PinStore, ServerReport } from '@harness/host/internal';
import type { Store } from '@harness/store';
import type { Agent, McpServer, Workspace } from '@harness/workspace';
import { CliError } from './errors';

/** How the broker reaches a server, without a header's or an env variable's value. */
export type TransportView =
  | { readonly kind: 'stdio'; readonly command: readonly string[]; readonly env: readonly string[] }
  | { readonly kind: 'http'; readonly origin: string; readonly headers: readonly string[] };

/** Whether a server runs confined, and how or why not. */
export type ConfinementView =
  | {
      readonly confined: true;
      readonly mechanism: string;
      readonly network: string;
      readonly write: readonly string[];
    }
  | { readonly confined: false; readonly reason: string };

/** One tool of one server, as the model is shown it and as the workspace governs it. */
export interface ToolView {
  /** `<server>.<tool>`: the id a model calls and a grant names. */
  readonly id: string;
  /** The name the server lists it under. */
  readonly upstream: string;
  /** The one-line signature the model reads in list_commands. */
  readonly signature: string;
  /** As the workspace declares it (`tools:`); undeclared is write. */
  readonly effect: 'read' | 'write';
  readonly tier: string;
  /** The agents granted it: the whole server (`server:<id>`) or this tool by its id. */
  readonly agents: readonly string[];
}

/** One server as `harness servers list` prints it. */
export interface ServerView {
  readonly id: string;
  readonly transport: TransportView;
  /** `ready`, or `failed` (its tools are not served; `error` says why). */
  readonly state: 'ready' | 'failed';
  readonly error?: string;
  readonly confinement: ConfinementView;
  /** The server's tier (`permission`), every tool's unless overridden. */
  readonly tier: string;
  readonly tools: readonly ToolView[];
  /** Keys of `tools` / `permission_overrides` that name no tool the server lists. */
  readonly warning?: string;
  /** Whether a person must accept each definition (`pin`, default true). */
  readonly pinned: boolean;
  /** Listed tools held back until a person accepts their definitions (SV-18). */
  readonly quarantined: readonly QuarantineView[];
}

/** A listed tool held for review: its id, its upstream name, its hash, and whether it is new or changed. */
export interface QuarantineView {
  readonly id: string;
  readonly upstream: string;
  readonly hash: string;
  readonly change: 'new' | 'changed';
}

/** The servers of one workspace, read once. */
export interface ServersReport {
  readonly workspaceFile: string;
  /** The instance whose `servers/<id>.log` was written; undefined when it does not exist yet. */
  readonly instanceDir: string | undefined;
  readonly agents: readonly string[];
  readonly servers: readonly ServerView[];
}

/** Whether `instanceDir` holds an instance (a log is written only into one: a new one must start empty). */
export const instanceExists = (instanceDir: string): boolean =>
  existsSync(join(instanceDir, 'instance.json'));

/**
 * Loads `workspaceFile` as a broker does, starts each of its MCP servers and reads its tools, then
 * closes them all (each stdio server's whole process tree ends) before answering. With an existing
 * instance, each server's stderr is kept in `<instance>/servers/<id>.log` exactly as a broker keeps it.
 */
export async function readServers(
  workspaceFile: string,
  instanceDir: string | undefined,
): Promise<ServersReport> {
  const { renderSignature } = await import('@harness/signature');
  const { serverToolTier } = await import('@harness/workspace');
  const instance = instanceDir !== undefined && instanceExists(instanceDir) ? instanceDir : undefined;
  const { openStore } = await import('@harness/host');
  // The instance's accepted definitions decide what is served; without an instance none is accepted.
  const store = instance === undefined ? undefined : await openInstanceStore(openStore, instance);
  let read: Awaited<ReturnType<typeof readReports>>;
  try {
    read = await readReports(workspaceFile, instance, store);
  } finally {
    await store?.close();
  }
  const { workspace, reports } = read;
  const byId = new Map(workspace.servers.map((s) => [s.id, s]));
  return {
    workspaceFile,
    instanceDir: instance,
    agents: workspace.agents.map((a) => a.id),
    servers: reports.map((report) => {
      const server = byId.get(report.id)!;
      const error = report.error ?? (report.state.state === 'ready' ? undefined : report.state.error);
      const failed = error !== undefined || report.state.state !== 'ready';
      return {
        id: report.id,
        transport: transportView(server),
        state: failed ? 'failed' : 'ready',
        ...(failed ? { error: error ?? `the server is ${report.state.state}` } : {}),
        confinement: confinementView(server, report),
        tier: server.tier,
        tools: report.tools.map((t) => ({
          id: t.id,
          upstream: t.upstream,
          signature: renderSignature({
            name: t.row.id,
            inputSchema: t.row.inputs,
            effect: t.row.effect,
            scope: t.row.scope,
          }),
          effect: t.row.effect === 'read' ? 'read' : 'write',
          tier: serverToolTier(server, t.upstream),
          agents: grantedTo(workspace.agents, server.id, t.id),
        })),
        ...(report.warning === undefined ? {} : { warning: report.warning }),
        pinned: server.pin,
        quarantined: report.quarantined.map((q) => ({
          id: q.id,
          upstream: q.upstream,
          hash: q.hash,
          change: q.accepted === undefined ? 'new' : 'changed',
        })),
      } satisfies ServerView;
    }),
  };
}

/** The instance's store, its failure to open a `config` error naming why. */
export async function openInstanceStore(
  openStore: (dir: string) => Promise<Store>,
  instanceDir: string,
): Promise<Store> {
  try {
    return await openStore(instanceDir);
  } catch (error) {
    throw new CliError('config', (error as Error).message, { cause: error });
  }
}

/**
 * Loads `workspaceFile` as a broker does, with the accepted definitions of `pins`, starts each MCP
 * server and reads its listing, then closes every server (and flushes its log) before answering.
 */
export async function readReports(
  workspaceFile: string,
  instance: string | undefined,
  pins: PinStore | undefined,
): Promise<{ workspace: Workspace; reports: ServerReport[] }> {
  const { loadPackBackend } = await import('@harness/host/internal');
  let loaded: Awaited<ReturnType<typeof loadPackBackend>>;
  try {
    loaded = await loadPackBackend(workspaceFile, instance, pins === undefined ? {} : { pins });
  } catch (error) {
    throw new CliError('config', (error as Error).message, { cause: error });
  }
  const { workspace, servers, backend } = loaded;
  let reports: ServerReport[] = [];
  try {
    if (servers !== undefined) {
      await servers.ready();
      reports = servers.reports();
    }
  } finally {
    // Flushes each server's log and closes every client: no server process is left behind.
    await backend.close?.();
    await loaded.runtime.servers.close();
  }
  return { workspace, reports };
}

/** The agents holding a tool: granted its whole server, or the tool by id. */
function grantedTo(agents: readonly Agent[], server: string, tool: string): string[] {
  return agents.filter((a) => a.servers.includes(server) || a.commands.includes(tool)).map((a) => a.id);
}

function transportView(server: McpServer): TransportView {
  const t = server.transport;
  if (t.kind === 'stdio') return { kind: 'stdio', command: t.command, env: Object.keys(t.env) };
  let origin: string;
  try {
    origin = new URL(t.url).origin;
  } catch {
    origin = '(a URL that does not parse)';
  }
  return { kind: 'http', origin, headers: Object.keys(t.headers) };
}

function confinementView(server: McpServer, report: ServerReport): ConfinementView {
  const c = report.state.confinement;
  if (c.confined) {
    return {
      confined: true,
      mechanism: c.mechanism === 'bwrap' ? 'bubblewrap' : 'sandbox-exec',
      network: c.network,
      write: c.write,
    };
  }
  // A stdio server that failed to start reports the plan it had, "not started yet": it was started
  // (and would be again) under its policy, through the mechanism found here.
  if (server.sandbox !== null && server.transport.kind === 'stdio') {
    const found = detectSandbox();
    if (found.available) {
      return {
        confined: true,
        mechanism: found.mechanism === 'bwrap' ? 'bubblewrap' : 'sandbox-exec',
        network: server.sandbox.network ?? 'none',
        write: server.sandbox.write ?? [],
      };
    }
  }
  // The workspace's own reason (sandbox: false, sandbox_mode off, HTTP) says more than the client's.
  const reason = server.unconfined ?? ('reason' in c ? c.reason : 'not confined');
  return { confined: false, reason };
}

/** The transport as one line: the argv a stdio server runs, or an HTTP server's origin; names only. */
export function transportLine(t: TransportView): string {
  if (t.kind === 'stdio') {
    const env = t.env.length === 0 ? '' : ` (env ${t.env.join(', ')})`;
    return `stdio: ${t.command.map(word).join(' ')}${env}`;
  }
  const headers = t.headers.length === 0 ? '' : ` (headers ${t.headers.join(', ')})`;
  return `http: ${t.origin}${headers}`;
}

/** Whether a server runs confined, as one phrase. */
export function confinementLine(c: ConfinementView): string {
  if (!c.confined) return `unconfined: ${c.reason}`;
  const write = c.write.length === 0 ? 'nothing' : c.write.join(', ');
  return `confined by ${c.mechanism} (network ${c.network}; writable: ${write})`;
}

/** A word of an argv as a shell reads it: quoted only when it must be. */
function word(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** The `--workspace` and `--instance` a servers command was given, as a person typed them. */
export interface Located {
  readonly workspace?: string | undefined;
  readonly instance?: string | undefined;
}

/**
 * A `harness servers …` line to paste, naming the workspace file and the instance as the command
 * that prints it was given them (made absolute), so it reads and decides where that one did.
 */
export function serversLine(words: readonly string[], given: Located): string {
  return commandLine([
    'harness',
    'servers',
    ...words,
    ...(given.workspace === undefined ? [] : ['--workspace', resolve(given.workspace)]),
    ...(given.instance === undefined ? [] : ['--instance', resolve(given.instance)]),
  ]);
}
