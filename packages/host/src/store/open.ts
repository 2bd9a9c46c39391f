// The store factory: a target in, a store out. The only place that picks an implementation.
import { join } from 'node:path';
import { openSqliteStore } from './sqlite/index';
import type { Store, StoreTarget } from './types';

/** The file name of the embedded (default) store inside an instance directory. */
export const STORE_FILE = 'loom.db';

/** The embedded store of an instance directory: a file inside it, nothing to install or run. */
export function embeddedStoreTarget(instanceDir: string): StoreTarget {
  return { kind: 'sqlite', file: join(instanceDir, STORE_FILE) };
}

/** Opens the store a target names (the default {@link StoreFactory}). */
export async function openStoreTarget(target: StoreTarget): Promise<Store> {
  switch (target.kind) {
    case 'sqlite':
      return openSqliteStore(target.file);
  }
}
