// PostgreSQL for the host's tests: the shared helpers (@harness/test-utils/pg) plus a migrated
// schema of its own per test file, and a store emptied between tests.
import {
  describePg,
  dropSchema,
  PG_SKIP,
  PG_TEST_ENV,
  pgAnswers,
  pgClient,
  pgQuery,
  pgRuns,
  uniqueSchema,
} from '@harness/test-utils/pg';
import { migrateStoreTarget } from '../src/store/open';
import { postgresTargetFromEnv } from '../src/store/postgres/target';
import type { PostgresTarget } from '../src/store/types';

export { describePg, PG_SKIP, pgAnswers, pgQuery, pgRuns };

/** Where the tests' server is, with a placeholder schema. */
export const PG_SERVER = postgresTargetFromEnv({ env: PG_TEST_ENV, schema: 'loom' });

/** A client of the tests' database, on `schema` when given. */
export const adminClient = pgClient;

/** A fresh schema, migrated, named uniquely for one test file; `drop()` removes it. */
export async function freshSchema(label: string): Promise<{ target: PostgresTarget; drop(): Promise<void> }> {
  const target: PostgresTarget = { ...PG_SERVER, schema: uniqueSchema(label) };
  await migrateStoreTarget(target);
  return { target, drop: () => dropSchema(target.schema) };
}

/** Empties every table of a schema and restarts its sequences: a store as new, in the same schema. */
export async function resetSchema(schema: string): Promise<void> {
  await pgQuery(
    "TRUNCATE looms, components, operations, receipts, audit, approvals RESTART IDENTITY CASCADE; UPDATE audit_clock SET at = ''",
    [],
    schema,
  );
}
