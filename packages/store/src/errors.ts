import { CodedError, type CodeOf, defineCodes } from '@harness/errors';

/** Codes of {@link StoreError}; callers branch on these, never on message text. */
export const StoreErrorCode = defineCodes({
  /** The store could not be opened or a statement failed unexpectedly. */
  store: 'store',
  /**
   * The store's server could not be reached, or the connection was lost before anything was
   * committed (after the retries): nothing was written.
   */
  store_unavailable: 'store_unavailable',
  /**
   * The connection to the store's server was lost while a write was committing: it may have
   * landed. A compose retried with the same request id settles it; other writes say what to check.
   */
  store_outcome_unknown: 'store_outcome_unknown',
  /**
   * The store's schema version is not the one this code reads: older (run `loom migrate`) or
   * newer (written by a newer host: upgrade this one).
   */
  store_schema: 'store_schema',
  /** The instance's audit key, or a public key given to verify with, cannot be read or is not Ed25519. */
  audit_key: 'audit_key',
  /** An audit export cannot be read: not a `loom-audit-export/1` JSONL file, or a line is not JSON. */
  audit_export: 'audit_export',
  /** An approval id is unknown or no longer pending. */
  approval_not_found: 'approval_not_found',
});

/** One of the {@link StoreErrorCode} values. */
export type StoreErrorCode = CodeOf<typeof StoreErrorCode>;

/** The one error class of `@harness/store`. Messages never carry a password or a connection URL. */
export class StoreError extends CodedError<StoreErrorCode> {
  override readonly name = 'StoreError';
}
