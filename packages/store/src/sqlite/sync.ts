import type { Store } from '../types';

/** The synchronous form of store methods: better-sqlite3 runs a whole transaction in one call. */
export type Sync<S> = {
  [K in keyof S]: S[K] extends (...a: infer A) => Promise<infer R> ? (...a: A) => R : never;
};

/** Every store method but `close`, synchronous. */
export type SyncStore = Sync<Omit<Store, 'close'>>;
