/** Codes of {@link HostError}; callers branch on these, never on message text. */
export const HOST_ERROR_CODES = {
  /** A scope file could not be read, parsed, or widens the agent's grants. */
  scopeInvalid: 'scope_invalid',
  /** The instance directory is missing, unreadable or not initialised. */
  instanceInvalid: 'instance_invalid',
  /** `initInstance` was pointed at a directory that already holds something. */
  instanceExists: 'instance_exists',
  /** The workspace file failed to load. */
  workspaceInvalid: 'workspace_invalid',
  /** A live broker already listens at the queue path, or the path is not a socket. */
  queueBusy: 'queue_busy',
  /**
   * The socket's directory is not private to this user (a symlink, someone else's, or writable by
   * group or others), so another user could replace the socket.
   */
  queueUnsafe: 'queue_unsafe',
  /** The store could not be opened or a statement failed unexpectedly. */
  store: 'store',
  /** An approval id is unknown or no longer pending. */
  approvalNotFound: 'approval_not_found',
  /** Direct transport settings are missing or malformed. */
  directInvalid: 'direct_invalid',
  /** A running command's record (`<instance>/running/<pgid>.json`) could not be written; it was killed. */
  runningRecord: 'running_record',
  /** A broker's retention rule is not a whole number of ms above 0. */
  retentionInvalid: 'retention_invalid',
} as const;

/** One {@link HostError} code. */
export type HostErrorCode = (typeof HOST_ERROR_CODES)[keyof typeof HOST_ERROR_CODES];

/** The one error class of `@harness/host`. Messages never carry a credential or raw arguments. */
export class HostError extends Error {
  override readonly name = 'HostError';
  readonly code: HostErrorCode;
  constructor(code: HostErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
