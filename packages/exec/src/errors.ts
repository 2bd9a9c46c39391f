/**
 * Codes of {@link ExecError}. Every one is raised before anything is spawned, except
 * `SPAWN_FAILED` (the OS refused the exec after the checks passed).
 */
export const ExecErrorCode = {
  /** `argv` is empty, or an element is not a string or contains NUL. */
  INVALID_ARGV: 'INVALID_ARGV',
  /** An env key is empty or contains `=` or NUL, or a value contains NUL. */
  INVALID_ENV: 'INVALID_ENV',
  /** A bound (`timeoutMs`, `maxOutputBytes`, `killGraceMs`, `onExceed`) or `stdin` has the wrong type or range. */
  INVALID_OPTION: 'INVALID_OPTION',
  /** `argv[0]` has no `/` and the caller's env has no `PATH` to resolve it against. */
  NO_PATH: 'NO_PATH',
  /** `argv[0]` was not found (on the caller's `PATH`, or at the path given). */
  EXECUTABLE_NOT_FOUND: 'EXECUTABLE_NOT_FOUND',
  /** `argv[0]` exists but is a directory or lacks execute permission. */
  NOT_EXECUTABLE: 'NOT_EXECUTABLE',
  /** `cwd` does not exist or is not a directory. */
  CWD_NOT_FOUND: 'CWD_NOT_FOUND',
  /** The caller's `signal` was already aborted; nothing ran. */
  ABORTED: 'ABORTED',
  /** `sandbox` is malformed, or the working directory is outside what it lets the program read. */
  INVALID_SANDBOX: 'INVALID_SANDBOX',
  /** `sandbox` was asked for but this machine has no working mechanism (bubblewrap, sandbox-exec). */
  SANDBOX_UNAVAILABLE: 'SANDBOX_UNAVAILABLE',
  /** The OS refused to start the process after the checks passed (e.g. `ENOEXEC`, `E2BIG`). */
  SPAWN_FAILED: 'SPAWN_FAILED',
} as const;

/** One of the {@link ExecErrorCode} values. */
export type ExecErrorCode = (typeof ExecErrorCode)[keyof typeof ExecErrorCode];

/**
 * The one error class of `@harness/exec`: a run that could not start. Branch on `code`, never on
 * the message. A run that started never throws: timeouts, signals and exit codes are data in
 * `RunResult`.
 */
export class ExecError extends Error {
  override readonly name = 'ExecError';
  readonly code: ExecErrorCode;
  constructor(code: ExecErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
