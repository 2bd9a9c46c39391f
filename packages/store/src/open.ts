// The store factory: a target in, a store out. The only place that picks an implementation. The
// PostgreSQL store (and its client) is imported only when a target names it, so an instance on
// SQLite never loads `pg`.
import { join } from 'node:path';
import { describePostgres } from './postgres/target';
import { openSqliteStore } from './sqlite/index';
import { SQLITE_SCHEMA_VERSION } from './sqlite/schema';
import type { Store, StoreOpenOptions, StoreTarget } from './types';

/** The file name of the embedded (default) store inside an instance directory. */
export const STORE_FILE = 'loom.db';

/** The embedded store of an instance directory: a file inside it, nothing to install or run. */
export function embeddedStoreTarget(instanceDir: string): StoreTarget {
  return { kind: 'sqlite', file: join(instanceDir, STORE_FILE) };
}

/**
 * Opens the store a target names (the default {@link StoreFactory}); with an audit signer (the
 * instance key) its events join that key's chain and its checkpoints are signed (docs/audit.md).
 */
export async function openStoreTarget(target: StoreTarget, options: StoreOpenOptions = {}): Promise<Store> {
  switch (target.kind) {
    case 'sqlite':
      return openSqliteStore(target.file, options);
    case 'postgres': {
      const { openPostgresStore } = await import('./postgres/index');
      return openPostgresStore(target, options);
    }
  }
}

/**
 * Brings a target's schema to the version this host writes, creating it when absent; the versions
 * before and after. SQLite migrates whenever its file is opened; PostgreSQL only here, because
 * several hosts share it (`loom init --store postgres`, `loom migrate`).
 */
export async function migrateStoreTarget(target: StoreTarget): Promise<{ from: number; to: number }> {
  switch (target.kind) {
    case 'sqlite': {
      // Opening migrates; the version before is not kept, so report the one it is at.
      await openSqliteStore(target.file).close();
      return { from: SQLITE_SCHEMA_VERSION, to: SQLITE_SCHEMA_VERSION };
    }
    case 'postgres': {
      const { migratePostgresTarget } = await import('./postgres/index');
      return migratePostgresTarget(target);
    }
  }
}

/** One line naming where a store lives, for a person: never a password. */
export function describeStoreTarget(target: StoreTarget): string {
  return target.kind === 'sqlite' ? `SQLite ${target.file}` : describePostgres(target);
}
