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
  /** Direct transport settings are missing or malformed. */
  direct_invalid: 'direct_invalid',
  /** A running command's record (`<instance>/running/<pgid>.json`) could not be written; it was killed. */
  running_record: 'running_record',
  /** A broker's retention rule is not a whole number of ms above 0. */
  retention_invalid: 'retention_invalid',
});

/** One of the {@link HostErrorCode} values. */
export type HostErrorCode = CodeOf<typeof HostErrorCode>;

/**
 * The one error class of `@harness/host`. Messages never carry a credential or raw arguments. What
 * the store raises (a `store…` code, `approval_not_found`) is `@harness/store`'s `StoreError`, which
 * the host's functions pass on as it is.
 */
export class HostError extends CodedError<HostErrorCode> {
  override readonly name = 'HostError';
}
