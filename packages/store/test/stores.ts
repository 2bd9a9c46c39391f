// The store contract suite over this package's two stores; the harness is @harness/test-utils/stores.
import { storeSuite } from '@harness/test-utils/stores';
import { migrateStoreTarget, openStoreTarget } from '../src/open';
import type { Store } from '../src/types';

export const { describeStores, freshSchema } = storeSuite<Store>({
  open: openStoreTarget,
  migrate: migrateStoreTarget,
});
