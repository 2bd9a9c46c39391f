import { CodedError, type CodeOf, defineCodes } from '@harness/errors';

/**
 * Codes of {@link ExecError}. Every one is raised before anything is spawned, except
 * `spawn_failed` (the OS refused the exec after the checks passed).
 */
export const ExecErrorCode = defineCodes({
  /** `argv` is empty, or an element is not a string or contains NUL. */
  invalid_argv: 'invalid_argv',
  /** An env key is empty or contains `=` or NUL, or a value contains NUL. */
  invalid_env: 'invalid_env',
  /** A bound (`timeoutMs`, `maxOutputBytes`, `killGraceMs`, `onExceed`) or `stdin` has the wrong type or range. */
  invalid_option: 'invalid_option',
  /** `argv[0]` has no `/` and the caller's env has no `PATH` to resolve it against. */
  no_path: 'no_path',
  /** `argv[0]` was not found (on the caller's `PATH`, or at the path given). */
  executable_not_found: 'executable_not_found',
  /** `argv[0]` exists but is a directory or lacks execute permission. */
  not_executable: 'not_executable',
  /** `cwd` does not exist or is not a directory. */
  cwd_not_found: 'cwd_not_found',
  /** The caller's `signal` was already aborted; nothing ran. */
  aborted: 'aborted',
  /** `sandbox` is malformed, or the working directory is outside what it lets the program read. */
  invalid_sandbox: 'invalid_sandbox',
  /** `sandbox` was asked for but this machine has no working mechanism (bubblewrap, sandbox-exec). */
  sandbox_unavailable: 'sandbox_unavailable',
  /**
   * The program a caller resolved beforehand (`program`) is no longer the file it hashed: replaced,
   * rewritten or gone between its resolution and the spawn. Nothing ran.
   */
  program_changed: 'program_changed',
  /** The OS refused to start the process after the checks passed (e.g. `ENOEXEC`, `E2BIG`). */
  spawn_failed: 'spawn_failed',
});

/** One of the {@link ExecErrorCode} values. */
export type ExecErrorCode = CodeOf<typeof ExecErrorCode>;

/**
 * The one error class of `@harness/exec`: a run that could not start. Branch on `code`, never on
 * the message. A run that started never throws: timeouts, signals and exit codes are data in
 * `RunResult`.
 */
export class ExecError extends CodedError<ExecErrorCode> {
  override readonly name = 'ExecError';
}
