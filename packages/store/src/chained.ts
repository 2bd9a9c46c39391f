// What both stores do around their chain: which chain a store appends to, and when its head is
// checkpointed (every few minutes while it grows, and when the store closes), docs/audit.md.
import { CHECKPOINT_EVERY_MS, UNSIGNED_CHAIN } from './audit-chain';
import type { AuditSigner, Store, StoreOpenOptions } from './types';

/** The chain a store appends to, and the key that signs its checkpoints (none: `unsigned`). */
export interface ChainSetup {
  readonly chain: string;
  readonly signer: AuditSigner | undefined;
  /** `false` (`chainAudit: false`): events are written without chain fields, nothing is signed. */
  readonly on: boolean;
}

/** The chain setup of open options. */
export function chainSetup(options: StoreOpenOptions): ChainSetup {
  const on = options.chainAudit !== false;
  const signer = on ? options.auditSigner : undefined;
  return { chain: signer?.chain ?? UNSIGNED_CHAIN, signer, on };
}

/** The store methods that may append an audit event. */
const APPENDING = ['appendAudit', 'compose', 'decideApproval', 'decideTool'] as const;

/**
 * The store with its chain's checkpoints kept: after a method that may append, a checkpoint is due
 * within `checkpointEveryMs` (a timer that never keeps the process alive); `close` writes one when
 * this store appended since the last. A checkpoint that fails (the store busy, or gone) is tried
 * at the next one; it loses nothing, since the chain itself is already committed.
 */
export function withCheckpoints(store: Store, options: StoreOpenOptions): Store {
  if (options.auditSigner === undefined || options.chainAudit === false) return store;
  const every = options.checkpointEveryMs ?? CHECKPOINT_EVERY_MS;
  let timer: NodeJS.Timeout | undefined;
  let dirty = false;
  let running: Promise<unknown> = Promise.resolve();
  const checkpoint = (kind: 'schedule' | 'shutdown'): Promise<unknown> => {
    dirty = false;
    running = running.then(() =>
      store.checkpointAudit(kind).catch(() => {
        dirty = true;
      }),
    );
    return running;
  };
  const touched = (): void => {
    dirty = true;
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void checkpoint('schedule');
    }, every);
    timer.unref();
  };
  const out: Store = { ...store };
  for (const name of APPENDING) {
    const method = store[name] as (...args: unknown[]) => Promise<unknown>;
    (out as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
      method(...args).finally(touched);
  }
  out.close = async () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (dirty) await checkpoint('shutdown');
    await running;
    await store.close();
  };
  return out;
}
