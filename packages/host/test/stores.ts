// The store contract suite over @harness/store, for the host's tests that run against both stores;
// the harness is @harness/test-utils/stores.
import { migrateStoreTarget, openStoreTarget, type Store } from '@harness/store';
import { storeSuite } from '@harness/test-utils/stores';

export const { describeStores, freshSchema } = storeSuite<Store>({
  open: openStoreTarget,
  migrate: migrateStoreTarget,
});
