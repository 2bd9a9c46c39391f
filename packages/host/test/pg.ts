// PostgreSQL for the host's tests: the shared helpers (@harness/test-utils/pg and /stores), a
// migrated schema of its own per test file (./stores), and a store emptied between tests.
export {
  describePg,
  pgClient as adminClient,
  pgQuery,
} from '@harness/test-utils/pg';
export { PG_SERVER, resetSchema } from '@harness/test-utils/stores';
export { freshSchema } from './stores';
