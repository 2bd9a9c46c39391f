// The PostgreSQL store: one schema of one database shared by several hosts, a pool per store (so
// per broker), every method one transaction. Loaded only when an instance names PostgreSQL.
import { chainSetup, withCheckpoints } from '../chained';
import type { PostgresTarget, Store, StoreOpenOptions } from '../types';
import { pgApprovals } from './approvals';
import { pgAudit } from './audit';
import { connectPostgres, type PgOptions } from './client';
import { pgLooms } from './looms';
import { pgNotices } from './notices';
import { pgPins } from './pins';
import { checkPostgresSchema, migratePostgres, PG_SCHEMA_VERSION } from './schema';

export type { PgOptions };
export { PG_SCHEMA_VERSION };

/**
 * Opens the store of a PostgreSQL target: connects (the server must answer), and refuses a schema
 * that is not at {@link PG_SCHEMA_VERSION} (a `store_schema` StoreError naming both versions). It
 * never migrates: that is `loom init --store postgres` and `loom migrate`.
 */
export async function openPostgresStore(
  target: PostgresTarget,
  options: PgOptions & StoreOpenOptions = {},
): Promise<Store> {
  const db = await connectPostgres(target, options);
  try {
    await checkPostgresSchema(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const setup = chainSetup(options);
  return withCheckpoints(
    {
      ...pgLooms(db, setup),
      ...pgAudit(db, setup),
      ...pgApprovals(db, setup),
      ...pgNotices(db),
      ...pgPins(db, setup),
      close: () => db.close(),
    },
    options,
  );
}

/** Creates the schema of a target or brings it to {@link PG_SCHEMA_VERSION}; the versions before and after. */
export async function migratePostgresTarget(
  target: PostgresTarget,
  options: PgOptions = {},
): Promise<{ from: number; to: number }> {
  const db = await connectPostgres(target, options);
  try {
    return await migratePostgres(db);
  } finally {
    await db.close();
  }
}
