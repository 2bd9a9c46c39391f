// The upstream MCP servers of one loaded workspace, as a second backend of the command layer beside
// the packs (docs/servers.md): one client per server, started on first need (a listing or a call),
// kept for the backend's life, closed with it; their tools as manifest rows; a call through the
// same gate, approvals, audit and answer shapes as a pack command's (./call.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CredentialSource } from '@harness/packs';
import type { ManifestRow } from '@harness/protocol';
import { createServerClient, type ServerClient, type ServerSpec, type ServerState } from '@harness/servers';
import { auditEvent, type McpServer, renderServerSecrets, type Workspace } from '@harness/workspace';
import type { PackCallContext, PackOutcome } from '../command/types';
import { runServerCall } from './call';
import { type ServedTool, servedTools, unknownToolKeys } from './rows';

/** What a server is doing, for `harness servers list` and `doctor`. */
export interface ServerReport {
  readonly id: string;
  readonly state: ServerState;
  /** Why its tools are not served, when they are not. */
  readonly error?: string;
  /** Keys of its `tools` / `permission_overrides` that name no listed tool. */
  readonly warning?: string;
  readonly tools: readonly ServedTool[];
}

/** Where a server's stderr is kept for `harness servers logs <id>`: `<instance>/servers/<id>.log`. */
export const serverLogFile = (instanceDir: string, id: string): string =>
  join(instanceDir, 'servers', `${id}.log`);

/**
 * The clients a broker keeps for its whole life, by the spec they were made for: a workspace reload
 * whose server entry is unchanged keeps its client (and its running server); the broker's close
 * closes them all.
 */
export class ServerPool {
  readonly #clients = new Map<string, ServerClient>();

  /** The client of this spec, made on first need. */
  client(spec: ServerSpec): ServerClient {
    const key = createHash('sha256').update(JSON.stringify(spec)).digest('hex');
    let client = this.#clients.get(key);
    if (client === undefined) {
      client = createServerClient(spec);
      this.#clients.set(key, client);
    }
    return client;
  }

  /** Closes every client: each stdio server's whole process tree ends. */
  async close(): Promise<void> {
    const clients = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.all(clients.map((c) => c.close()));
  }
}

/** One server: its client, and the tools its last listing served. */
interface Entry {
  readonly server: McpServer;
  readonly client: ServerClient | undefined;
  /** Why no client could be made (a credential missing). */
  readonly unusable?: string;
  tools: readonly ServedTool[];
  error?: string;
  warning?: string;
  /** The last reason told on stderr, so a server that keeps failing the same way is told once. */
  told?: string;
  reading?: Promise<void>;
  /** The log version last written to the instance (absent: none written yet). */
  logged?: number;
}

/** The servers of one workspace behind a broker. */
export class ServerBackend {
  readonly #workspace: Workspace;
  readonly #credentials: CredentialSource | undefined;
  readonly #instanceDir: string | undefined;
  readonly #pool: ServerPool;
  readonly #entries: Map<string, Entry>;
  #rows: readonly ManifestRow[] = [];
  #byId = new Map<string, ServedTool>();
  #started: Promise<void> | undefined;

  constructor(
    workspace: Workspace,
    credentials: CredentialSource | undefined,
    instanceDir: string | undefined,
    pool: ServerPool,
  ) {
    this.#workspace = workspace;
    this.#credentials = credentials;
    this.#instanceDir = instanceDir;
    this.#pool = pool;
    this.#entries = new Map(workspace.servers.map((s) => [s.id, this.#entry(s)]));
  }

  #entry(server: McpServer): Entry {
    const secrets = renderServerSecrets(server, this.#credentials);
    if (!secrets.ok)
      return { server, client: undefined, unusable: secrets.message, tools: [], error: secrets.message };
    const client = this.#pool.client(specOf(server, secrets.values));
    const entry: Entry = { server, client, tools: [] };
    client.onToolsChanged(() => {
      entry.reading = this.#read(entry);
    });
    return entry;
  }

  /** Whether `id` names a tool of one of these servers (`<server>.<tool>`). */
  owns(id: string): boolean {
    const dot = id.indexOf('.');
    return dot > 0 && this.#entries.has(id.slice(0, dot));
  }

  /** Starts every server and reads its listing, once; later calls wait for the same start. */
  ready(): Promise<void> {
    this.#started ??= Promise.all([...this.#entries.values()].map((e) => this.#read(e))).then(
      () => undefined,
    );
    return this.#started;
  }

  /** Re-reads a listing that failed (a server that died restarts on the next need, with backoff). */
  async #refresh(entry: Entry): Promise<void> {
    if (entry.error !== undefined && entry.unusable === undefined) await this.#read(entry);
  }

  async #read(entry: Entry): Promise<void> {
    if (entry.client === undefined) return;
    const listing = await entry.client.tools();
    if (!listing.ok) {
      entry.tools = [];
      entry.error = listing.message;
    } else {
      const served = servedTools(this.#workspace, entry.server, listing.tools);
      entry.tools = served.ok ? served.tools : [];
      if (served.ok) delete entry.error;
      else entry.error = served.message;
      const warning = unknownToolKeys(entry.server, listing.tools);
      if (warning === undefined) delete entry.warning;
      else entry.warning = warning;
    }
    this.#rebuild();
    this.#keepLog(entry);
    this.#tell(entry);
  }

  /** Tells the person (the broker's stderr) once of each new reason a server's tools are not served. */
  #tell(entry: Entry): void {
    const said = entry.error ?? entry.warning;
    if (said === undefined || said === entry.told) return;
    entry.told = said;
    process.stderr.write(`harness: ${said}\n`);
  }

  #rebuild(): void {
    const tools = [...this.#entries.values()].flatMap((e) => e.tools);
    this.#byId = new Map(tools.map((t) => [t.id, t]));
    this.#rows = tools.map((t) => t.row);
  }

  /**
   * Writes a server's stderr ring where `harness servers logs` reads it (0600, replaced whole), when
   * it changed since the last write: a call that left the log as it was writes nothing.
   */
  #keepLog(entry: Entry): void {
    if (this.#instanceDir === undefined || entry.client === undefined) return;
    const version = entry.client.logVersion();
    if (entry.logged === version) return;
    const file = serverLogFile(this.#instanceDir, entry.server.id);
    try {
      mkdirSync(join(this.#instanceDir, 'servers'), { recursive: true, mode: 0o700 });
      writeFileSync(file, entry.client.logs(), { mode: 0o600 });
      entry.logged = version;
    } catch {
      // A log that cannot be written never fails a call.
    }
  }

  /** The rows of every tool served now: the same array until a listing changes. */
  rows(): readonly ManifestRow[] {
    return this.#rows;
  }

  /** Every server's state, listing error and tools. */
  reports(): ServerReport[] {
    return [...this.#entries.values()].map((e) => ({
      id: e.server.id,
      state: e.client?.state() ?? {
        id: e.server.id,
        state: 'failed',
        confinement: { confined: false, reason: 'not started' },
        restarts: 0,
        ...(e.unusable === undefined ? {} : { error: e.unusable }),
      },
      ...(e.error === undefined ? {} : { error: e.error }),
      ...(e.warning === undefined ? {} : { warning: e.warning }),
      tools: e.tools,
    }));
  }

  /** The served tool of `id`, reading its server's listing again when it failed last time. */
  async tool(id: string): Promise<ServedTool | undefined> {
    await this.ready();
    const entry = this.#entries.get(id.slice(0, id.indexOf('.')));
    if (entry && !this.#byId.has(id)) await this.#refresh(entry);
    return this.#byId.get(id);
  }

  /** Why a server's tools are not served now, naming the server; undefined when they are. */
  unavailable(id: string): string | undefined {
    return this.#entries.get(id.slice(0, id.indexOf('.')))?.error;
  }

  /** The audit input naming a served tool's upstream name (its id's member may be mapped). */
  #named(id: string): { upstream?: string } {
    const upstream = this.#byId.get(id)?.upstream;
    return upstream === undefined ? {} : { upstream };
  }

  action(id: string): string {
    return auditEvent(this.#workspace, id, this.#named(id))?.action ?? `mcp:call:${id.replace('.', ':')}`;
  }

  auditPayload(id: string): Record<string, unknown> {
    const payload = auditEvent(this.#workspace, id, this.#named(id))?.payload;
    return payload ? { ...payload } : { provider: 'mcp', member: id };
  }

  async run(id: string, args: Record<string, unknown>, ctx: PackCallContext): Promise<PackOutcome> {
    const tool = await this.tool(id);
    const entry = this.#entries.get(id.slice(0, id.indexOf('.')));
    const outcome = await runServerCall(
      { workspace: this.#workspace, credentials: this.#credentials, instanceDir: this.#instanceDir },
      id,
      tool,
      entry?.client,
      this.unavailable(id),
      args,
      ctx,
    );
    if (entry) this.#keepLog(entry);
    return outcome;
  }

  /** Keeps each server's log as it is now (the pool's owner closes the clients). */
  flushLogs(): void {
    for (const e of this.#entries.values()) this.#keepLog(e);
  }
}

/**
 * The client's spec of a server: a stdio server's whole environment is PATH, HOME, PWD and its own
 * `env` with credentials filled in (nothing else of the broker's, SV-12); an HTTP server's headers
 * likewise.
 */
function specOf(server: McpServer, values: Readonly<Record<string, string>>): ServerSpec {
  const t = server.transport;
  const transport: ServerSpec['transport'] =
    t.kind === 'stdio'
      ? {
          kind: 'stdio',
          command: t.command,
          cwd: t.cwd,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: homedir(), PWD: t.cwd, ...values },
          sandbox: server.sandbox,
        }
      : { kind: 'http', url: t.url, headers: values };
  return { id: server.id, transport, startTimeoutMs: server.startTimeoutMs };
}
