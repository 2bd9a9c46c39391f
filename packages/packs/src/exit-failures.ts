// The named failures a pack may give an exit code (`failure_exit_codes`, docs/packs.md): the same
// words as `@harness/protocol`'s `EXIT_FAILURES` (the host's answers.ts fails to compile when the
// two differ), kept here so the pack language imports no wire protocol.

/**
 * What a nonzero exit of a command means when its pack names it: `tests_failed` (a test runner
 * ran and a test failed), `problems_found` (a linter, type checker or format check ran and reports
 * problems), `build_failed` (a compiler or builder ran and the code does not build). A closed list,
 * so a model and a script read every pack's failures in the same words.
 */
export const EXIT_FAILURES = ['tests_failed', 'problems_found', 'build_failed'] as const;

/** One named failure of an exit code. */
export type ExitFailure = (typeof EXIT_FAILURES)[number];
