import { CodedError, type CodeOf, defineCodes } from '@harness/errors';

/** The CLI's error codes; each maps to one exit code (see docs/cli.md). */
export const CliErrorCode = defineCodes({
  usage: 'usage',
  config: 'config',
  check_failed: 'check_failed',
  host_unavailable: 'host_unavailable',
  internal: 'internal',
});
export type CliErrorCode = CodeOf<typeof CliErrorCode>;

/** Exit code per error code: 2 usage, 3 configuration, 1 a check or demo step failed, 4 host unavailable, 70 internal. */
export const exitCodes: Record<CliErrorCode, number> = {
  usage: 2,
  config: 3,
  check_failed: 1,
  host_unavailable: 4,
  internal: 70,
};

/** An expected CLI failure: printed as one line, mapped to an exit code. */
export class CliError extends CodedError<CliErrorCode> {
  override readonly name = 'CliError';
}

/** Whether `--debug` stands anywhere on the command line: failures then print their stack. */
export const debugRequested = (): boolean => process.argv.includes('--debug');

/**
 * What the one top-level handler prints for an error, and the exit code: one line naming what
 * failed; for anything that is not a {@link CliError} (a bug) the stack follows only with `--debug`.
 */
export function describeFailure(error: unknown, debug: boolean): { lines: string[]; exitCode: number } {
  if (error instanceof CliError) {
    const lines = [`harness: ${error.message}`];
    if (debug && error.cause instanceof Error && error.cause.stack) lines.push(error.cause.stack);
    return { lines, exitCode: exitCodes[error.code] };
  }
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  const lines = [`harness: internal error: ${message}${debug ? '' : ' (run with --debug for the stack)'}`];
  if (debug && error instanceof Error && error.stack) lines.push(error.stack);
  return { lines, exitCode: exitCodes.internal };
}
