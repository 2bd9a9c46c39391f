// Public surface of @harness/exec: bounded argv execution (no shell, explicit env, timeout and
// process-group kill, streaming output ceiling).
export { ExecError, ExecErrorCode } from './errors';
export { truncationMarker } from './output';
export { resolveExecutable } from './resolve';
export { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, run } from './run';
export type {
  AppliedLimits,
  ByteCounts,
  OnExceed,
  RunOptions,
  RunOutcome,
  RunResult,
  SpawnInfo,
} from './types';
