// The SQLite store: one file per instance, better-sqlite3, every method one transaction.

import { chainSetup, withCheckpoints } from '../chained';
import { StoreError, StoreErrorCode } from '../errors';
import type { Store, StoreOpenOptions } from '../types';
import { sqliteApprovals } from './approvals';
import { sqliteAudit } from './audit';
import { sqliteLooms } from './looms';
import { sqliteNotices } from './notices';
import { sqlitePins } from './pins';
import { openDatabase } from './schema';
import type { SyncStore } from './sync';

/**
 * Makes the synchronous methods the store's asynchronous ones: each still runs its whole
 * transaction synchronously, so nothing interleaves inside it; a driver error becomes a `store`
 * StoreError naming what failed.
 */
function guarded(store: SyncStore): Omit<Store, 'close'> {
  const what: Record<keyof Omit<Store, 'close'>, string> = {
    compose: 'commit a compose',
    inspect: 'read a loom',
    receipts: 'read receipts',
    listLooms: 'list the looms',
    loomReceipts: "read a loom's receipts",
    appendAudit: 'append an audit event',
    tailAudit: 'read the audit log',
    queryAudit: 'query the audit log',
    readAuditChain: 'read the audit chain',
    auditCheckpoints: 'read the audit checkpoints',
    checkpointAudit: 'checkpoint the audit chain',
    prune: 'prune the audit log and spent approvals',
    takeApproval: 'take an approval',
    requestApproval: 'request an approval',
    getApproval: 'read an approval',
    listApprovals: 'list approvals',
    decideApproval: 'decide an approval',
    claimNotice: 'claim an approval notice',
    recordNotice: 'record an approval notice',
    listNotices: "read an approval's notices",
    listToolPins: "read the servers' pinned tools",
    sightTool: 'record a tool definition awaiting review',
    listToolSightings: 'read the tool definitions awaiting review',
    decideTool: "decide on a server tool's definition",
  };
  const out = {} as Record<string, unknown>;
  for (const [name, fn] of Object.entries(store) as [keyof typeof what, (...a: unknown[]) => unknown][]) {
    out[name] = async (...args: unknown[]) => {
      try {
        return fn(...args);
      } catch (cause) {
        if (cause instanceof StoreError) throw cause;
        throw new StoreError(
          StoreErrorCode.store,
          `the store failed to ${what[name]}: ${(cause as Error).message}`,
          {
            cause,
          },
        );
      }
    };
  }
  return out as Omit<Store, 'close'>;
}

/**
 * Opens (creating when absent) the SQLite store at `file`: WAL mode, a busy timeout so that several
 * brokers on one instance wait for each other, every write in one `BEGIN IMMEDIATE` transaction and
 * every read in one deferred transaction (one snapshot).
 */
export function openSqliteStore(
  file: string,
  options: { readonly?: boolean } & StoreOpenOptions = {},
): Store {
  const db = openDatabase(file, options);
  const setup = chainSetup(options);
  return withCheckpoints(
    {
      ...guarded({
        ...sqliteLooms(db, setup),
        ...sqliteAudit(db, setup),
        ...sqliteApprovals(db, setup),
        ...sqliteNotices(db),
        ...sqlitePins(db, setup),
      }),
      close: async () => {
        db.close();
      },
    },
    options,
  );
}
