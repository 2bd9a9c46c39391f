// The upstream MCP servers of one loaded workspace, as a second backend of the command layer beside
// the packs (docs/servers.md): one client per server, started on first need (a listing or a call),
// kept for the backend's life, closed with it; their tools as manifest rows; a call through the
// same gate, approvals, audit and answer shapes as a pack command's (./call.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { commandLine, instanceArgs } from '@harness/config/instance';
import type { CredentialSource } from '@harness/packs';
import type { ManifestRow } from '@harness/protocol';
import {
  createServerClient,
  type ServerClient,
  type ServerSpec,
  type ServerState,
  type UpstreamTool,
} from '@harness/servers';
import type { Store } from '@harness/store';
import { auditEvent, type McpServer, renderServerSecrets, type Workspace } from '@harness/workspace';
import type { PackCallContext, PackOutcome, Unavailable } from '../command/types';
import type { ToolNotices } from '../notify/tools';
import { runServerCall } from './call';
import {
  type AcceptedHashes,
  pinnedReadOnly,
  type QuarantinedTool,
  type ServedTool,
  servedTools,
  unknownToolKeys,
} from './rows';

/**
 * Where a backend reads the definitions a person accepted and records those awaiting review: the
 * instance's store (docs/servers.md, "Pinned definitions").
 */
export type PinStore = Pick<Store, 'listToolPins' | 'sightTool'>;

/** What a server is doing, for `harness servers list` and `doctor`. */
export interface ServerReport {
  readonly id: string;
  readonly state: ServerState;
  /** Why its tools are not served, when they are not. */
  readonly error?: string;
  /** Keys of its `tools` / `permission_overrides` that name no listed tool. */
  readonly warning?: string;
  readonly tools: readonly ServedTool[];
  /** Its listed tools whose definition no person accepted (SV-18). */
  readonly quarantined: readonly QuarantinedTool[];
  /** Its last listing as read, every tool (quarantined ones too); undefined before one was read. */
  readonly listing?: readonly UpstreamTool[];
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
  quarantined: readonly QuarantinedTool[];
  /** The last listing read, every tool. */
  listing?: readonly UpstreamTool[];
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
  readonly #pins: PinStore | undefined;
  readonly #notices: ToolNotices | undefined;
  #rows: readonly ManifestRow[] = [];
  #byId = new Map<string, ServedTool>();
  #quarantined: readonly QuarantinedTool[] = [];
  #quarantinedById = new Map<string, QuarantinedTool>();
  /** The accepted hashes by server, as last read from the store, and that read's fingerprint. */
  #accepted = new Map<string, AcceptedHashes>();
  #acceptedKey: string | undefined;
  #started: Promise<void> | undefined;

  constructor(
    workspace: Workspace,
    credentials: CredentialSource | undefined,
    instanceDir: string | undefined,
    pool: ServerPool,
    pins?: PinStore,
    notices?: ToolNotices,
  ) {
    this.#workspace = workspace;
    this.#credentials = credentials;
    this.#instanceDir = instanceDir;
    this.#pool = pool;
    this.#pins = pins;
    this.#notices = notices;
    this.#entries = new Map(workspace.servers.map((s) => [s.id, this.#entry(s)]));
  }

  #entry(server: McpServer): Entry {
    const secrets = renderServerSecrets(server, this.#credentials);
    if (!secrets.ok)
      return {
        server,
        client: undefined,
        unusable: secrets.message,
        tools: [],
        quarantined: [],
        error: secrets.message,
      };
    const client = this.#pool.client(specOf(server, secrets.values));
    const entry: Entry = { server, client, tools: [], quarantined: [] };
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

  /**
   * Starts every server and reads its listing, once; later calls wait for the same start. Then it
   * reads the accepted definitions again, so a person's accept or reject reaches a running broker at
   * its next listing, or its next call of a tool not served now, with no restart (docs/servers.md,
   * "Review"). A call of a tool served now (`id`) reads nothing: its listed hash was accepted, and an
   * accept of another hash for it is seen by the listing the client revalidates before each call.
   */
  async ready(id?: string): Promise<void> {
    this.#started ??= this.#syncPins().then(() =>
      Promise.all([...this.#entries.values()].map((e) => this.#read(e))).then(() => undefined),
    );
    await this.#started;
    if (id !== undefined && this.#byId.has(id)) return;
    if (await this.#syncPins()) {
      for (const entry of this.#entries.values()) this.#apply(entry);
      this.#rebuild();
    }
  }

  /** Reads the accepted hashes from the store; whether they changed since the last read. */
  async #syncPins(): Promise<boolean> {
    if (this.#pins === undefined) return false;
    const pins = await this.#pins.listToolPins();
    const key = pins.map((p) => `${p.server}\n${p.tool}\n${p.hash}`).join('\n');
    if (key === this.#acceptedKey) return false;
    this.#acceptedKey = key;
    const accepted = new Map<string, Map<string, string>>();
    for (const p of pins) {
      const of = accepted.get(p.server) ?? new Map<string, string>();
      accepted.set(p.server, of);
      of.set(p.tool, p.hash);
    }
    this.#accepted = accepted;
    return true;
  }

  /** Re-reads a listing that failed (a server that died restarts on the next need, with backoff). */
  async #refresh(entry: Entry): Promise<void> {
    if (entry.error !== undefined && entry.unusable === undefined) await this.#read(entry);
  }

  async #read(entry: Entry): Promise<void> {
    if (entry.client === undefined) return;
    const listing = await entry.client.tools();
    if (!listing.ok) {
      delete entry.listing;
      entry.tools = [];
      entry.quarantined = [];
      entry.error = listing.message;
    } else {
      entry.listing = listing.tools;
      this.#apply(entry);
      const warning = unknownToolKeys(entry.server, listing.tools);
      if (warning === undefined) delete entry.warning;
      else entry.warning = warning;
      await this.#sight(entry.quarantined);
    }
    this.#rebuild();
    this.#keepLog(entry);
    this.#tell(entry);
  }

  /** Serves an entry's last listing under the accepted hashes: each tool served or quarantined. */
  #apply(entry: Entry): void {
    if (entry.listing === undefined) return;
    const accepted = this.#accepted.get(entry.server.id) ?? new Map<string, string>();
    const served = servedTools(this.#workspace, entry.server, entry.listing, accepted);
    entry.tools = served.ok ? served.tools : [];
    entry.quarantined = served.ok ? served.quarantined : [];
    if (served.ok) delete entry.error;
    else entry.error = served.message;
  }

  /**
   * Records each quarantined definition of a listing, with its text, for review (the console's
   * Servers view reads it from the store alone): when it was first listed, and, at every listing,
   * when it was last. The one call that records it first anywhere (across restarts and hosts sharing
   * the store) announces it to the workspace's `notify` targets (docs/notify.md, "Server tools").
   */
  async #sight(quarantined: readonly QuarantinedTool[]): Promise<void> {
    if (this.#pins === undefined) return;
    for (const q of quarantined) {
      let sighting: Awaited<ReturnType<PinStore['sightTool']>>;
      try {
        sighting = await this.#pins.sightTool({
          server: q.server.id,
          tool: q.upstream,
          hash: q.hash,
          definition: q.definition,
        });
      } catch {
        // When it appeared is for the review; a store that fails here fails no listing.
        continue;
      }
      if (!sighting.inserted) continue;
      this.#notices?.sighted(
        {
          server: q.server.id,
          id: q.id,
          upstream: q.upstream,
          hash: q.hash,
          ...(q.accepted === undefined ? {} : { accepted: q.accepted }),
          firstSeen: sighting.first_seen,
          review: reviewCommand(q.server.id, this.#instanceDir),
        },
        this.#workspace.notify,
      );
    }
  }

  /** Tells the person (the broker's stderr) once of each new reason a server's tools are not served. */
  #tell(entry: Entry): void {
    const said = entry.error ?? entry.warning;
    if (said === undefined || said === entry.told) return;
    entry.told = said;
    process.stderr.write(`harness: ${said}\n`);
  }

  #rebuild(): void {
    const entries = [...this.#entries.values()];
    const tools = entries.flatMap((e) => e.tools);
    const quarantined = entries.flatMap((e) => e.quarantined);
    this.#byId = new Map(tools.map((t) => [t.id, t]));
    const rows = tools.map((t) => t.row);
    // The same arrays while nothing changed: the host's listing (and its etag) is cached on them.
    if (!sameRows(rows, this.#rows)) this.#rows = rows;
    const ids = quarantined.map((q) => q.id);
    if (ids.join('\n') !== this.#quarantined.map((q) => q.id).join('\n')) this.#quarantined = quarantined;
    this.#quarantinedById = new Map(quarantined.map((q) => [q.id, q]));
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

  /** The ids of the listed tools held back for a person's review: the same array until they change. */
  quarantined(): readonly string[] {
    return this.#quarantinedIds();
  }

  #idsCache: { of: readonly QuarantinedTool[]; ids: readonly string[] } | undefined;
  #quarantinedIds(): readonly string[] {
    if (this.#idsCache?.of !== this.#quarantined)
      this.#idsCache = { of: this.#quarantined, ids: this.#quarantined.map((q) => q.id) };
    return this.#idsCache.ids;
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
      quarantined: e.quarantined,
      ...(e.listing === undefined ? {} : { listing: e.listing }),
    }));
  }

  /** The served tool of `id`, reading its server's listing again when it failed last time. */
  async tool(id: string): Promise<ServedTool | undefined> {
    await this.ready(id);
    const entry = this.#entries.get(id.slice(0, id.indexOf('.')));
    if (entry && !this.#byId.has(id)) await this.#refresh(entry);
    return this.#byId.get(id);
  }

  /**
   * Why `id` is not served now: its tool is quarantined (naming only ids and hashes, never the
   * server's words), or its server's tools are not served; undefined when it is served.
   */
  unavailable(id: string): Unavailable | undefined {
    const held = this.#quarantinedById.get(id);
    if (held !== undefined)
      return { reason: 'quarantined', message: quarantineMessage(held, this.#instanceDir) };
    const error = this.#entries.get(id.slice(0, id.indexOf('.')))?.error;
    return error === undefined ? undefined : { reason: 'server_unavailable', message: error };
  }

  /** The audit input naming a served tool's upstream name (its id's member may be mapped). */
  #named(id: string): { upstream?: string; pinnedReadOnly?: boolean } {
    const tool = this.#byId.get(id);
    return tool === undefined
      ? {}
      : { upstream: tool.upstream, pinnedReadOnly: pinnedReadOnly(tool.server, tool.definition) };
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

/** Whether two row lists hold the same rows (the rows of a tool are rebuilt on each apply). */
function sameRows(a: readonly ManifestRow[], b: readonly ManifestRow[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}

/** The command a person reviews a server's quarantined tools with. */
function reviewCommand(server: string, instanceDir: string | undefined): string {
  return commandLine(['harness', 'servers', 'review', server, ...instanceArgs(instanceDir)]);
}

/** What a call of a quarantined tool answers: what holds it, and the command a person reviews it with. */
export function quarantineMessage(q: QuarantinedTool, instanceDir: string | undefined): string {
  const review = reviewCommand(q.server.id, instanceDir);
  const why =
    q.accepted === undefined
      ? 'no person has accepted its definition yet'
      : `its definition changed since a person accepted it (accepted sha256 ${q.accepted.slice(0, 12)}, listed now ${q.hash.slice(0, 12)})`;
  return `${q.id} is quarantined pending a person's review: ${why}, so it is not served and nothing was sent to the server. Tell the person; they review it with \`${review}\``;
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
