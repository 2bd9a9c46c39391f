// The host's embedding API: what `loom` and the harness CLI call.

import { readFileSync } from 'node:fs';
import { type CommandAnswer, type ListResult, type RunRequest, warnQueuePath } from '@harness/protocol';
import {
  type ApprovalRecord,
  type ApprovalStatus,
  type AuditEvent,
  type AuditPage,
  type AuditQuery,
  auditChainOn,
  type DecisionAssertion,
  type DecisionVia,
  describeStoreTarget,
  instanceAuditSigner,
  openStoreTarget,
  type PruneResult,
  StoreError,
  StoreErrorCode,
  type StoreFactory,
} from '@harness/store';
import { APPROVAL_TTL_MS, notDecidableText, withApprovals } from './approvals';
import { type BrokerServer, serveBroker } from './broker';
import { BUILTIN_IDS } from './builtins';
import { recordEvent } from './command/audit';
import { HostError, HostErrorCode } from './errors';
import { type CommandHost, createCommandHost, type PackBackend } from './host';
import { openStore, readInstance } from './instance';
import { createApprovalNotifier } from './notify/notifier';
import { createToolNotifier, type ToolNotices } from './notify/tools';
import {
  CREDENTIALS_FILE,
  type LoadedPackBackend,
  loadPackBackend,
  readCredentials,
  readPackBackend,
} from './packs-backend';
import { ownIdentity } from './peer';
import { REAP_ACTOR, reapRunning } from './running';
import { type ResolvedScope, readScopeFile, resolveScope, type ScopeFile } from './scope';
import {
  acceptCommand,
  readAccepted,
  SHOWN_DIGEST,
  writeAccepted,
  writePending,
} from './workspace-acceptance';
import { type AuthorityDiff, compareAuthority } from './workspace-authority';
import {
  type FollowedWorkspace,
  followWorkspace,
  heldEvent,
  heldLine,
  type WorkspaceCheck,
} from './workspace-reload';

/** What starting a broker takes besides its socket path. */
export interface BrokerStartSettings {
  /** An instance directory made by `initInstance` / `loom init`. */
  instanceDir: string;
  /** A scope file path (YAML or JSON), or a scope already parsed. */
  scope: string | ScopeFile;
  /** Approval lifetime in ms (default one hour). */
  approvalTtlMs?: number;
  /** Opens the instance's store (default: the store its `instance.json` names). */
  openStore?: StoreFactory;
  /**
   * The retention rule: audit events and spent approvals older than this many ms are pruned by the
   * broker (as `loom audit prune --before` would), once at start and then every
   * {@link RETENTION_EVERY_MS}. Absent: kept until pruned by hand. Receipts are never pruned.
   */
  retentionMs?: number;
  /**
   * Told after each check of the workspace file the broker follows (docs/host.md, "Editing the
   * workspace while the broker runs"): `unchanged` (a write of the same content), `reloaded` or
   * `failed`. The broker's log and audit say the same; this is for an embedder's own display.
   */
  onWorkspaceCheck?: ((check: WorkspaceCheck) => void) | undefined;
}

/**
 * Options of {@link startBroker}: the settings, and where the Unix socket goes as `socketPath` (its
 * directory is created, mode 0700, when missing). `queuePath`, its old name, is still taken, with
 * one DeprecationWarning (`HARNESS_DEP_QUEUE_PATH`); both at once are refused (`socket_invalid`).
 */
export type StartBrokerOptions = BrokerStartSettings &
  (
    | { socketPath: string; queuePath?: undefined }
    | {
        /** @deprecated The old name of `socketPath` (same value). */
        queuePath: string;
        socketPath?: undefined;
      }
  );

/** How often a broker with a retention rule prunes the store: hourly. */
const RETENTION_EVERY_MS = 3_600_000;

/** A running broker with the scope it serves. */
export interface RunningBroker extends BrokerServer {
  /** The scope served now: resolved against the workspace content the broker serves. */
  readonly scope: ResolvedScope;
  /** @deprecated The old name of `socketPath` (same value); reading it warns once (`HARNESS_DEP_QUEUE_PATH`). */
  readonly queuePath: string;
}

/** The socket path `options` name, under its name or its old one (which warns); else a `socket_invalid` error. */
function socketPathOf(options: { socketPath?: string | undefined; queuePath?: string | undefined }): string {
  const { socketPath, queuePath } = options;
  if (queuePath !== undefined) {
    if (socketPath !== undefined) {
      throw new HostError(
        HostErrorCode.socket_invalid,
        'give socketPath only: queuePath is its old name, and both are set',
      );
    }
    warnQueuePath('startBroker({ queuePath })', 'startBroker({ socketPath })');
    return queuePath;
  }
  if (typeof socketPath !== 'string' || socketPath === '') {
    throw new HostError(
      HostErrorCode.socket_invalid,
      `startBroker needs socketPath, where the broker's Unix socket goes (e.g. /run/loom/agent.sock); found ${socketPath === '' ? 'an empty string' : 'none'}`,
    );
  }
  return socketPath;
}

/**
 * Starts a broker for one scope: opens the instance's store, kills every pack command a crashed
 * broker left running on the instance (one `host:reap` audit event each; docs/host.md, "Commands
 * outliving a crashed broker"), loads the workspace, resolves the scope against it (a scope that
 * widens the agent's grants fails here) and listens on `socketPath`. While it runs it follows the
 * workspace file: an edit that loads and still serves the scope is switched to for the calls that
 * start after it, one that does not is refused and the old content kept (docs/host.md, "Editing the
 * workspace while the broker runs").
 * `close()` stops it, waits for calls in flight, closes the store and removes the socket.
 */
export async function startBroker(options: StartBrokerOptions): Promise<RunningBroker> {
  const { retentionMs } = options;
  const socketPath = socketPathOf(options);
  if (retentionMs !== undefined && (!Number.isSafeInteger(retentionMs) || retentionMs <= 0)) {
    throw new HostError(
      HostErrorCode.retention_invalid,
      `retentionMs must be a whole number of ms above 0, found ${retentionMs}; e.g. 30 days = ${30 * 86_400_000}`,
    );
  }
  // Told of each server tool definition first quarantined here (docs/notify.md, "Server tools").
  const toolNotices = createToolNotifier({ log: (line) => process.stderr.write(`${line}\n`) });
  let prepared: Awaited<ReturnType<typeof prepareBroker>>;
  try {
    prepared = await prepareBroker(options, { reap: true, toolNotices });
  } catch (error) {
    await toolNotices.close();
    throw error;
  }
  // One command host per content of the workspace the broker serves; each is told to end its
  // waits for people at close, since a call may still wait on a host an edit replaced.
  const hosts = new Set<CommandHost>();
  const notices = createApprovalNotifier({
    store: prepared.store,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const makeHost = (scope: ResolvedScope, packs: PackBackend): CommandHost => {
    const host = createCommandHost({
      store: prepared.store,
      scope,
      packs,
      transport: 'broker',
      notices,
      ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
    });
    hosts.add(host);
    return host;
  };
  let workspace: FollowedWorkspace | undefined;
  try {
    const { served, held } = prepared;
    await holdAtStart(prepared, options.onWorkspaceCheck);
    workspace = followWorkspace({
      workspaceFile: prepared.instance.workspaceFile,
      instanceDir: prepared.instance.dir,
      scope: prepared.scopeFile,
      scopeFile: prepared.scopeName,
      runtime: prepared.runtime,
      store: prepared.store,
      initial: {
        host: makeHost(prepared.scope, served.backend),
        scope: prepared.scope,
        digest: served.digest,
        workspace: served.workspace,
      },
      held: held?.digest,
      makeHost,
      log: (line) => process.stderr.write(`${line}\n`),
      onCheck: options.onWorkspaceCheck,
    });
    const following = workspace;
    const identity = ownIdentity();
    const { sessions, starting } = prepared.runtime;
    const server = await serveBroker(() => following.current().host, socketPath, {
      ...(identity === undefined
        ? {}
        : { peers: { ...identity, runs: () => sessions, settled: () => starting.settled() } }),
      onPeerUnknown: (reason) =>
        process.stderr.write(
          `harness broker: cannot tell which process connects (${reason}), so connections are served unchecked; confined commands still cannot open a Unix socket (docs/security.md)\n`,
        ),
    });
    const retention = applyRetention(prepared.store, retentionMs);
    return {
      socketPath: server.socketPath,
      get queuePath() {
        warnQueuePath('RunningBroker.queuePath', 'socketPath');
        return server.socketPath;
      },
      get scope() {
        return following.current().scope;
      },
      async close() {
        retention?.stop();
        await following.close();
        // A call waiting for a person answers now: the close waits for calls in flight.
        for (const host of hosts) host.endWaits();
        await server.close();
        await notices.close();
        await toolNotices.close();
        await retention?.idle();
        // The backend loaded at start owns the runtime every later one borrowed.
        await prepared.backend.close?.();
        await prepared.store.close();
      },
    };
  } catch (error) {
    await workspace?.close();
    await notices.close();
    await toolNotices.close();
    await prepared.backend.close?.();
    await prepared.store.close();
    throw error;
  }
}

/**
 * When the file widens what was last accepted, the accepted content is served until a person
 * accepts it: the held content is recorded as pending, audited, logged and told to `onCheck`.
 */
async function holdAtStart(
  prepared: Awaited<ReturnType<typeof prepareBroker>>,
  onCheck: BrokerStartSettings['onWorkspaceCheck'],
): Promise<void> {
  const { served, held, instance } = prepared;
  if (held === undefined) return;
  const file = instance.workspaceFile;
  writePending(instance.dir, {
    digest: held.digest,
    served: served.digest,
    at: new Date().toISOString(),
    widenings: held.diff.widenings,
    narrowings: held.diff.narrowings,
  });
  await recordEvent(
    prepared.store,
    heldEvent(prepared.scope.run, file, served.digest, held.digest, held.diff),
  );
  process.stderr.write(`${heldLine(file, served.digest, held.digest, held.diff, instance.dir, true)}\n`);
  onCheck?.({
    outcome: 'held',
    served: served.digest,
    digest: held.digest,
    widenings: held.diff.widenings.map((c) => c.text),
  });
}

/**
 * Prunes what is older than `retentionMs` now and every {@link RETENTION_EVERY_MS} (the timer never
 * keeps the process alive). A prune that fails (a store busy past its timeout) is tried again at
 * the next tick: it removes nothing, so nothing is lost.
 */
function applyRetention(
  store: { prune(before: Date): Promise<PruneResult> },
  retentionMs: number | undefined,
): { stop(): void; idle(): Promise<void> } | undefined {
  if (retentionMs === undefined) return undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = running.then(() =>
      store.prune(new Date(Date.now() - retentionMs)).then(
        () => undefined,
        () => undefined,
      ),
    );
  };
  tick();
  const timer = setInterval(tick, RETENTION_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), idle: () => running };
}

/** One step of what a broker checks before it listens, as {@link checkBroker} reports it. */
export interface BrokerCheck {
  name: 'instance' | 'store' | 'credentials' | 'workspace' | 'scope';
  ok: boolean;
  /** What was checked, or why it failed (the error {@link startBroker} would throw). */
  detail: string;
}

/**
 * Runs every check {@link startBroker} runs before it listens (instance record, store, credentials
 * file, workspace, scope), in the same order and through the same code, without reaping, listening
 * or changing anything. The first failing step ends the list, as it would end a broker's start.
 */
export async function checkBroker(
  options: Pick<StartBrokerOptions, 'instanceDir' | 'scope'>,
): Promise<BrokerCheck[]> {
  const checks: BrokerCheck[] = [];
  try {
    const prepared = await prepareBroker(options, { reap: false, report: (c) => checks.push(c) });
    await prepared.backend.close?.();
    await prepared.store.close();
  } catch {
    // The failing step is already reported.
  }
  return checks;
}

/** Opens the store, (optionally) reaps, loads the workspace and resolves the scope: a broker's start. */
async function prepareBroker(
  options: Pick<StartBrokerOptions, 'instanceDir' | 'scope' | 'openStore'>,
  how: { reap: boolean; report?: (check: BrokerCheck) => void; toolNotices?: ToolNotices },
) {
  const step = async <T>(
    name: BrokerCheck['name'],
    run: () => T | Promise<T>,
    detail: (value: T) => string,
  ) => {
    try {
      const value = await run();
      how.report?.({ name, ok: true, detail: detail(value) });
      return value;
    } catch (error) {
      how.report?.({ name, ok: false, detail: (error as Error).message });
      throw error;
    }
  };
  const instance = await step(
    'instance',
    () => readInstance(options.instanceDir),
    (i) => i.dir,
  );
  const store = await step(
    'store',
    () =>
      (options.openStore ?? openStoreTarget)(instance.store, {
        auditSigner: instanceAuditSigner(instance.dir),
        chainAudit: auditChainOn(),
      }),
    () =>
      `${describeStoreTarget(instance.store)} ${instance.store.kind === 'sqlite' ? 'opens' : 'answers; its schema is the version this host needs'}`,
  );
  try {
    // First, before anything can fail on the workspace or the scope: whatever a crashed broker left
    // running on this instance is killed.
    if (how.reap) await reapRunning(instance.dir, store);
    await step(
      'credentials',
      () => readCredentials(instance.dir),
      (c) => (c === undefined ? `no ${CREDENTIALS_FILE}` : `${CREDENTIALS_FILE} readable by its owner only`),
    );
    // The bytes loaded are the bytes compared with the accepted content, and recorded when accepted.
    const bytes = readWorkspaceBytes(instance.workspaceFile);
    const loaded = await step(
      'workspace',
      () =>
        loadPackBackend(instance.workspaceFile, instance.dir, {
          pins: store,
          ...(how.toolNotices === undefined ? {} : { toolNotices: how.toolNotices }),
          ...(bytes === undefined ? {} : { bytes }),
        }),
      () => instance.workspaceFile,
    );
    const scopeName = typeof options.scope === 'string' ? options.scope : undefined;
    try {
      const { served, held } = how.reap
        ? await servedAtStart(instance, loaded, bytes)
        : { served: loaded, held: undefined };
      let scopeFile: ScopeFile | undefined;
      const scope = await step(
        'scope',
        () => {
          scopeFile = scopeName === undefined ? (options.scope as ScopeFile) : readScopeFile(scopeName);
          return resolveScope(scopeFile, served.scopeWorkspace, scopeName);
        },
        (s) =>
          `agent ${s.agent}, ${s.commands.size} command(s)${scopeName === undefined ? '' : ` (${scopeName})`}`,
      );
      // The scope as read at start is what each edit of the workspace is resolved against.
      return {
        store,
        instance,
        ...loaded,
        served,
        held,
        scope,
        scopeFile: scopeFile as ScopeFile,
        scopeName,
      };
    } catch (error) {
      await loaded.backend.close?.();
      throw error;
    }
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The workspace file's bytes, or `undefined` when it cannot be read (the load then says why). */
function readWorkspaceBytes(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * What a broker's start serves (docs/workspace-changes.md): the file as loaded when it is the content
 * last accepted for the instance, when the instance has none yet (its first start: the person
 * started it), or when it widens nothing of the accepted content (it is then recorded as accepted);
 * else the accepted content, with the file held for a person. Accepted content that no longer loads
 * beside a file that differs from it stops the start: what the file widens cannot be shown.
 */
async function servedAtStart(
  instance: { dir: string; workspaceFile: string },
  loaded: LoadedPackBackend,
  bytes: Buffer | undefined,
): Promise<{ served: LoadedPackBackend; held: { digest: string; diff: AuthorityDiff } | undefined }> {
  const current = { served: loaded, held: undefined };
  const accepted = readAccepted(instance.dir);
  if (bytes === undefined) return current;
  if (accepted === undefined) {
    writeAccepted(instance.dir, bytes, REAP_ACTOR, 'first_start');
    return current;
  }
  if (accepted.digest === loaded.digest) return current;
  const before = await readPackBackend(instance.workspaceFile, instance.dir, {
    bytes: accepted.bytes,
    runtime: loaded.runtime,
  });
  if (!before.ok) {
    const first = before.issues[0];
    throw new HostError(
      HostErrorCode.workspace_invalid,
      `the workspace ${instance.workspaceFile} differs from the content last accepted for this instance (sha256 ${accepted.digest.slice(0, SHOWN_DIGEST)}), which no longer loads (${first?.message ?? 'unknown error'}), so what the file widens cannot be shown and nothing is served; review the file and accept it: ${acceptCommand(loaded.digest, instance.dir)}`,
    );
  }
  const diff = compareAuthority(before.workspace, loaded.workspace);
  if (diff.widenings.length === 0) {
    writeAccepted(instance.dir, bytes, REAP_ACTOR, 'narrowing');
    return current;
  }
  const { ok: _ok, ...served } = before;
  return { served, held: { digest: loaded.digest, diff } };
}

/** Direct transport settings: the instance, and the attribution the embedder pins. */
export interface DirectOptions {
  instanceDir: string;
  /** Non-empty, trimmed, at most 128 characters. */
  runId: string;
  /** `agent:<id>`; non-empty, trimmed, at most 128 characters. */
  actor: string;
}

function directScope(options: DirectOptions): ResolvedScope {
  const check = (name: string, v: string): void => {
    if (v.length === 0 || v.length > 128 || v.trim() !== v || /[\u0000-\u001f]/.test(v)) {
      throw new HostError(
        HostErrorCode.direct_invalid,
        `${name} must be 1–128 characters without surrounding whitespace or control characters, found ${JSON.stringify(v.slice(0, 140))}`,
      );
    }
  };
  check('LOOM_RUN_ID', options.runId);
  check('LOOM_ACTOR', options.actor);
  if (!/^agent:[^\s]+$/.test(options.actor)) {
    throw new HostError(
      HostErrorCode.direct_invalid,
      `LOOM_ACTOR must be an agent actor, agent:<id>; found ${JSON.stringify(options.actor)}`,
    );
  }
  return {
    run: options.runId,
    agent: options.actor.slice('agent:'.length),
    actor: options.actor,
    servers: new Set(),
    commands: new Set(),
    builtins: new Set(BUILTIN_IDS),
    readOnly: 'reads',
  };
}

/** `loom command list --transport direct`: the built-ins (pack commands need a broker's grant). */
export async function listDirect(options: DirectOptions): Promise<ListResult> {
  const store = await openStore(options.instanceDir);
  try {
    const listed = await createCommandHost({ store, scope: directScope(options), transport: 'direct' }).list(
      {},
    );
    return 'forbidden' in listed ? { commands: [] } : listed;
  } finally {
    await store.close();
  }
}

/** `loom command run --transport direct`: one built-in call against the instance's store. */
export async function runDirect(
  options: DirectOptions & { request: Omit<RunRequest, 'protocol' | 'id' | 'op'> },
): Promise<CommandAnswer> {
  const scope = directScope(options);
  const store = await openStore(options.instanceDir);
  try {
    return await createCommandHost({ store, scope, transport: 'direct' }).run({
      op: 'run',
      ...options.request,
    });
  } finally {
    await store.close();
  }
}

/** Approvals of an instance, newest first (pending only unless `status` says otherwise). */
export function listApprovals(
  instanceDir: string,
  filter: { status?: ApprovalStatus | 'all' } = {},
): Promise<ApprovalRecord[]> {
  return withApprovals(instanceDir, (approvals) => approvals.list(filter));
}

/** One approval of an instance by id, as stored; `undefined` when there is none. */
export function getApproval(instanceDir: string, id: string): Promise<ApprovalRecord | undefined> {
  return withApprovals(instanceDir, (approvals) => approvals.get(id));
}

/**
 * Approves or denies a pending approval. A person does this (`loom approvals approve <id>`); no
 * broker request reaches it. An approved call may run once, within `ttlMs` (default one hour).
 * `via` records where the decision was given (`cli`, `console`, `elicitation`); `assertion`, the
 * person's passkey assertion over it, is kept with it and in its audit event (the console checks
 * it before deciding). An id that is unknown or no longer pending throws a `StoreError`
 * (`approval_not_found`); `withApprovals` answers it as data instead.
 */
export async function decideApproval(
  instanceDir: string,
  id: string,
  decision: 'approved' | 'denied',
  by: string,
  ttlMs = APPROVAL_TTL_MS,
  via?: DecisionVia,
  assertion?: DecisionAssertion,
): Promise<ApprovalRecord> {
  const result = await withApprovals(instanceDir, (approvals) =>
    approvals.decide(id, decision, { by, ttlMs, via, assertion }),
  );
  if (result.ok) return result.record;
  throw new StoreError(StoreErrorCode.approval_not_found, notDecidableText(result));
}

/**
 * Deletes an instance's audit events older than `before` and its spent approvals (consumed,
 * denied, expired) last changed before it; receipts stay (see `Store.prune`).
 */
export async function pruneStore(instanceDir: string, before: Date): Promise<PruneResult> {
  const store = await openStore(instanceDir);
  try {
    return await store.prune(before);
  } finally {
    await store.close();
  }
}

/** The last `limit` audit events of an instance, oldest first. */
export async function tailAudit(instanceDir: string, limit = 20): Promise<AuditEvent[]> {
  const store = await openStore(instanceDir);
  try {
    return await store.tailAudit(limit);
  } finally {
    await store.close();
  }
}

/**
 * One filtered page of an instance's audit log, oldest first (see `AuditQuery`: exact-match
 * filters on actor, command, outcome, a time range, `seq` cursors both ways, at most
 * `AUDIT_PAGE_MAX` events). What `loom audit tail` and a console page through.
 */
export async function queryAudit(instanceDir: string, query: AuditQuery = {}): Promise<AuditPage> {
  const store = await openStore(instanceDir);
  try {
    return await store.queryAudit(query);
  } finally {
    await store.close();
  }
}
