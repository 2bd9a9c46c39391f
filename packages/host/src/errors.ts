import { CodedError, type CodeOf, defineCodes } from '@harness/errors';

/** Codes of {@link HostError}; callers branch on these, never on message text. */
export const HostErrorCode = defineCodes({
  /** A scope file could not be read, parsed, or widens the agent's grants. */
  scope_invalid: 'scope_invalid',
  /** The instance directory is missing, unreadable or not initialised. */
  instance_invalid: 'instance_invalid',
  /** `initInstance` was pointed at a directory that already holds something. */
  instance_exists: 'instance_exists',
  /** The workspace file failed to load. */
  workspace_invalid: 'workspace_invalid',
  /** A live broker already listens at the socket path, or the path is not a socket. */
  queue_busy: 'queue_busy',
  /**
   * The socket's directory is not private to this user (a symlink, someone else's, or writable by
   * group or others), so another user could replace the socket.
   */
  queue_unsafe: 'queue_unsafe',
  /** `startBroker` was given no socket path, or both `socketPath` and its old name `queuePath`. */
  socket_invalid: 'socket_invalid',
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
   * The store's schema version is not the one this host reads: older (run `loom migrate`) or
   * newer (written by a newer host: upgrade this one).
   */
  store_schema: 'store_schema',
  /** An approval id is unknown or no longer pending. */
  approval_not_found: 'approval_not_found',
  /** Direct transport settings are missing or malformed. */
  direct_invalid: 'direct_invalid',
  /** A running command's record (`<instance>/running/<pgid>.json`) could not be written; it was killed. */
  running_record: 'running_record',
  /** A broker's retention rule is not a whole number of ms above 0. */
  retention_invalid: 'retention_invalid',
});

/** One of the {@link HostErrorCode} values. */
export type HostErrorCode = CodeOf<typeof HostErrorCode>;

/** The one error class of `@harness/host`. Messages never carry a credential or raw arguments. */
export class HostError extends CodedError<HostErrorCode> {
  override readonly name = 'HostError';
}
