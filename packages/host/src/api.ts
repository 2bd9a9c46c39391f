// The host's embedding API: what `loom` and the harness CLI call.

import { type BrokerServer, serveBroker } from './broker';
import { BUILTIN_IDS } from './builtins';
import { HOST_ERROR_CODES, HostError } from './errors';
import { APPROVAL_TTL_MS, createCommandHost } from './host';
import { openStore, readInstance } from './instance';
import { loadPackBackend } from './packs-backend';
import type { CommandAnswer, ListResult, RunRequest } from './protocol';
import { reapRunning } from './running';
import { type ResolvedScope, readScopeFile, resolveScope, type ScopeFile } from './scope';
import { openStoreTarget } from './store/open';
import type { ApprovalRecord, ApprovalStatus, AuditEvent, StoreFactory } from './store/types';

/** Options of {@link startBroker}. */
export interface StartBrokerOptions {
  /** An instance directory made by `initInstance` / `loom init`. */
  instanceDir: string;
  /** Where the Unix socket goes (its directory is created, mode 0700, when missing). */
  queuePath: string;
  /** A scope file path (YAML or JSON), or a scope already parsed. */
  scope: string | ScopeFile;
  /** Approval lifetime in ms (default one hour). */
  approvalTtlMs?: number;
  /** Opens the instance's store (default: the store its `instance.json` names). */
  openStore?: StoreFactory;
}

/** A running broker with the scope it serves. */
export interface RunningBroker extends BrokerServer {
  readonly scope: ResolvedScope;
}

/**
 * Starts a broker for one scope: opens the instance's store, kills every pack command a crashed
 * broker left running on the instance (one `host:reap` audit event each; docs/host.md, "Commands
 * outliving a crashed broker"), loads the workspace, resolves the scope against it (a scope that
 * widens the agent's grants fails here) and listens on `queuePath`.
 * `close()` stops it, waits for calls in flight, closes the store and removes the socket.
 */
export async function startBroker(options: StartBrokerOptions): Promise<RunningBroker> {
  const instance = readInstance(options.instanceDir);
  const store = (options.openStore ?? openStoreTarget)(instance.store);
  try {
    // First, before anything can fail on the workspace or the scope: whatever a crashed broker left
    // running on this instance is killed.
    await reapRunning(instance.dir, store);
    const scopeFile = typeof options.scope === 'string' ? readScopeFile(options.scope) : options.scope;
    const scopeName = typeof options.scope === 'string' ? options.scope : '<scope>';
    const { backend, scopeWorkspace } = await loadPackBackend(instance.workspaceFile, instance.dir);
    const scope = resolveScope(scopeFile, scopeWorkspace, scopeName);
    const host = createCommandHost({
      store,
      scope,
      packs: backend,
      transport: 'broker',
      approvalTtlMs: options.approvalTtlMs ?? APPROVAL_TTL_MS,
    });
    const server = await serveBroker(host, options.queuePath);
    return {
      queuePath: server.queuePath,
      scope,
      async close() {
        await server.close();
        store.close();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
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
        HOST_ERROR_CODES.directInvalid,
        `${name} must be 1–128 characters without surrounding whitespace or control characters, found ${JSON.stringify(v.slice(0, 140))}`,
      );
    }
  };
  check('LOOM_RUN_ID', options.runId);
  check('LOOM_ACTOR', options.actor);
  if (!/^agent:[^\s]+$/.test(options.actor)) {
    throw new HostError(
      HOST_ERROR_CODES.directInvalid,
      `LOOM_ACTOR must be an agent actor, agent:<id>; found ${JSON.stringify(options.actor)}`,
    );
  }
  return {
    run: options.runId,
    agent: options.actor.slice('agent:'.length),
    actor: options.actor,
    commands: new Set(),
    builtins: new Set(BUILTIN_IDS),
    readOnly: 'reads',
  };
}

/** `loom command list --transport direct`: the built-ins (pack commands need a broker's grant). */
export function listDirect(options: DirectOptions): ListResult {
  const store = openStore(options.instanceDir);
  try {
    const listed = createCommandHost({ store, scope: directScope(options), transport: 'direct' }).list({});
    return 'forbidden' in listed ? { commands: [] } : listed;
  } finally {
    store.close();
  }
}

/** `loom command run --transport direct`: one built-in call against the instance's store. */
export async function runDirect(
  options: DirectOptions & { request: Omit<RunRequest, 'protocol' | 'id' | 'op'> },
): Promise<CommandAnswer> {
  const scope = directScope(options);
  const store = openStore(options.instanceDir);
  try {
    return await createCommandHost({ store, scope, transport: 'direct' }).run({
      op: 'run',
      ...options.request,
    });
  } finally {
    store.close();
  }
}

/** Approvals of an instance, newest first (pending only unless `status` says otherwise). */
export function listApprovals(
  instanceDir: string,
  filter: { status?: ApprovalStatus | 'all' } = {},
): ApprovalRecord[] {
  const store = openStore(instanceDir);
  try {
    return store.listApprovals(filter);
  } finally {
    store.close();
  }
}

/**
 * Approves or denies a pending approval. A person does this (`loom approvals approve <id>`); no
 * broker request reaches it. An approved call may run once, within `ttlMs` (default one hour).
 */
export function decideApproval(
  instanceDir: string,
  id: string,
  decision: 'approved' | 'denied',
  by: string,
  ttlMs = APPROVAL_TTL_MS,
): ApprovalRecord {
  const store = openStore(instanceDir);
  try {
    return store.decideApproval(id, decision, by, ttlMs);
  } finally {
    store.close();
  }
}

/** The last `limit` audit events of an instance, oldest first. */
export function tailAudit(instanceDir: string, limit = 20): AuditEvent[] {
  const store = openStore(instanceDir);
  try {
    return store.tailAudit(limit);
  } finally {
    store.close();
  }
}
