import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import {
  AUDIT_KEY_FILE,
  embeddedStoreTarget,
  ensureAuditKey,
  instanceAuditSigner,
  migrateStoreTarget,
  openStoreTarget,
  type PostgresTarget,
  readPostgresRecord,
  STORE_FILE,
  type Store,
  type StoreFactory,
  type StoreTarget,
} from '@harness/store';
import { HostError, HostErrorCode } from './errors';
import { loadPackBackend } from './packs-backend';
import { readScopeFile, resolveScope } from './scope';

/** The file in an instance directory that records what the instance is. */
export const INSTANCE_FILE = 'instance.json';
export { STORE_FILE };

/** What `instance.json` records. */
export interface InstanceInfo {
  /** Absolute instance directory. */
  dir: string;
  /** Absolute path of the workspace file the broker loads (the one `loom init` was given). */
  workspaceFile: string;
  /** The copy of the workspace taken at init, inside the instance directory (a record, not loaded). */
  workspaceCopy: string;
  /** Where the instance keeps its store. */
  store: StoreTarget;
  /**
   * The instance's Ed25519 private key (mode 0600): it signs the checkpoints of the instance's audit
   * chain (docs/audit.md). An instance made before keys gets one when its store is next opened.
   */
  auditKeyFile: string;
  createdAt: string;
  /**
   * What the instance serves, recorded when it was created with one: an agent of the workspace, or
   * a scope file (absolute). Absent on instances created without one.
   */
  serves?: InstanceServes;
}

/** The agent (or scope file) an instance serves. */
export type InstanceServes = { agent: string } | { scopeFile: string };

/** The credentials file an instance directory may hold before the instance is created in it. */
const CREDENTIALS_NAME = 'credentials.json';

/**
 * Creates an instance directory (mode 0700) holding the store and a record of the workspace. The
 * workspace is loaded first, so a broken one creates nothing; the directory is assembled beside its
 * final path and renamed into place, so a failure leaves nothing half-written. `dir` may exist only
 * as an empty directory, or one holding only `credentials.json`. `store` names a PostgreSQL store instead of the embedded SQLite file: its
 * schema is created or migrated to this host's version first, and it is recorded without a password.
 */
export async function initInstance(
  dir: string,
  workspaceFile: string,
  options: { serves?: InstanceServes; store?: PostgresTarget } = {},
): Promise<InstanceInfo> {
  const target = resolve(dir);
  const workspace = resolve(workspaceFile);
  // A credentials.json put there first (harness init --import) is the one thing it may hold: it
  // moves into the new instance.
  let credentials = false;
  try {
    const held = readdirSync(target);
    credentials = held.length === 1 && held[0] === CREDENTIALS_NAME;
    if (held.length > 0 && !credentials) {
      throw new HostError(
        HostErrorCode.instance_exists,
        `${target} exists and is not empty; choose a new directory for the instance`,
      );
    }
  } catch (error) {
    if (error instanceof HostError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new HostError(HostErrorCode.instance_exists, `${target} exists and is not a directory`);
    }
  }
  const { scopeWorkspace } = await loadPackBackend(workspace);
  // What the instance will serve must resolve against its workspace now, not at every later start.
  if (options.serves !== undefined) {
    const named = 'scopeFile' in options.serves ? options.serves.scopeFile : undefined;
    const scope =
      named === undefined
        ? { run: 'init', agent: (options.serves as { agent: string }).agent }
        : readScopeFile(named);
    resolveScope(scope, scopeWorkspace, named);
  }
  const staging = join(dirname(target), `.${basename(target)}.init-${randomBytes(4).toString('hex')}`);
  mkdirSync(dirname(target), { recursive: true });
  mkdirSync(staging, { mode: 0o700 });
  try {
    chmodSync(staging, 0o700);
    const copyName = `workspace${extname(workspace) || '.yaml'}`;
    copyFileSync(workspace, join(staging, copyName));
    const createdAt = new Date().toISOString();
    // A PostgreSQL store is recorded without a password (the target type holds none).
    const store = options.store === undefined ? {} : { store: options.store };
    writeFileSync(
      join(staging, INSTANCE_FILE),
      `${JSON.stringify({ version: 1, workspace, workspaceCopy: copyName, createdAt, ...servesRecord(options.serves), ...store }, null, 2)}\n`,
      { mode: 0o600 },
    );
    // The store is made (SQLite) or brought to this host's schema (PostgreSQL) before the
    // instance exists: a server that does not answer leaves no instance behind.
    const storeTarget = options.store ?? embeddedStoreTarget(staging);
    await migrateStoreTarget(storeTarget);
    // The instance's key, and the signed start of its audit chain (docs/audit.md).
    ensureAuditKey(staging);
    const begun = await openStoreTarget(storeTarget, { auditSigner: instanceAuditSigner(staging) });
    try {
      await begun.checkpointAudit('schedule');
    } finally {
      await begun.close();
    }
    if (credentials) renameSync(join(target, CREDENTIALS_NAME), join(staging, CREDENTIALS_NAME));
    try {
      renameSync(staging, target);
    } catch (cause) {
      if (credentials) renameSync(join(staging, CREDENTIALS_NAME), join(target, CREDENTIALS_NAME));
      throw new HostError(
        HostErrorCode.instance_exists,
        `could not move the new instance into ${target}: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
    return readInstance(target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Loads a workspace and resolves what an instance would serve against it: what {@link initInstance}
 * checks before it creates anything. Throws the `workspace_invalid` or `scope_invalid` HostError.
 */
export async function checkServes(workspaceFile: string, serves: InstanceServes | undefined): Promise<void> {
  const { scopeWorkspace } = await loadPackBackend(resolve(workspaceFile));
  // What the instance will serve must resolve against its workspace now, not at every later start.
  if (serves === undefined) return;
  const named = 'scopeFile' in serves ? serves.scopeFile : undefined;
  const scope = 'agent' in serves ? { run: 'init', agent: serves.agent } : readScopeFile(serves.scopeFile);
  resolveScope(scope, scopeWorkspace, named);
}

/** Reads an instance directory's record; a `instance_invalid` HostError says what is wrong. */
export function readInstance(dir: string): InstanceInfo {
  const abs = resolve(dir);
  let text: string;
  try {
    if (!statSync(abs).isDirectory()) throw new Error('not a directory');
    text = readFileSync(join(abs, INSTANCE_FILE), 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new HostError(
      HostErrorCode.instance_invalid,
      `${abs} is not a readable Loom instance (${code ?? (cause as Error).message}); create one with \`loom init <dir> --workspace <file>\``,
      { cause },
    );
  }
  let record: {
    version?: unknown;
    workspace?: unknown;
    workspaceCopy?: unknown;
    createdAt?: unknown;
    agent?: unknown;
    scopeFile?: unknown;
    store?: unknown;
  };
  try {
    record = JSON.parse(text) as typeof record;
  } catch (cause) {
    throw new HostError(HostErrorCode.instance_invalid, `${join(abs, INSTANCE_FILE)} is not JSON`, {
      cause,
    });
  }
  if (
    record.version !== 1 ||
    typeof record.workspace !== 'string' ||
    typeof record.workspaceCopy !== 'string'
  ) {
    throw new HostError(
      HostErrorCode.instance_invalid,
      `${join(abs, INSTANCE_FILE)} is not a version-1 instance record`,
    );
  }
  return {
    dir: abs,
    workspaceFile: record.workspace,
    workspaceCopy: join(abs, record.workspaceCopy),
    store: storeRecord(record.store, abs),
    auditKeyFile: join(abs, AUDIT_KEY_FILE),
    createdAt: typeof record.createdAt === 'string' ? record.createdAt : '',
    ...(typeof record.scopeFile === 'string'
      ? { serves: { scopeFile: record.scopeFile } }
      : typeof record.agent === 'string'
        ? { serves: { agent: record.agent } }
        : {}),
  };
}

/** The store an instance record names: its own SQLite file when it names none. */
function storeRecord(value: unknown, dir: string): StoreTarget {
  if (value === undefined) return embeddedStoreTarget(dir);
  const where = join(dir, INSTANCE_FILE);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HostError(HostErrorCode.instance_invalid, `${where}: "store" must be an object`);
  }
  const kind = (value as { kind?: unknown }).kind;
  if (kind === 'sqlite') return embeddedStoreTarget(dir);
  if (kind !== 'postgres') {
    throw new HostError(
      HostErrorCode.instance_invalid,
      `${where}: "store.kind" must be "sqlite" or "postgres", found ${JSON.stringify(kind)}`,
    );
  }
  const target = readPostgresRecord(value as Record<string, unknown>);
  if (typeof target === 'string') throw new HostError(HostErrorCode.instance_invalid, `${where}: ${target}`);
  return target;
}

function servesRecord(serves: InstanceServes | undefined): Record<string, string> {
  if (serves === undefined) return {};
  return 'agent' in serves ? { agent: serves.agent } : { scopeFile: resolve(serves.scopeFile) };
}

/**
 * Opens the store of an instance directory (the directory must have been made by
 * {@link initInstance}), through `factory` (default: the store its record names), with the
 * instance's audit key: its events join the instance's chain (docs/audit.md).
 */
export function openStore(dir: string, factory: StoreFactory = openStoreTarget): Promise<Store> {
  const info = readInstance(dir);
  return factory(info.store, { auditSigner: instanceAuditSigner(info.dir) });
}
