// Public surface of @harness/exec: bounded argv execution (no shell, explicit env, timeout and
// process-group kill, streaming output ceiling) and its confinement (bubblewrap, sandbox-exec).
export { ExecError, ExecErrorCode } from './errors';
export { truncationMarker } from './output';
export type { ProgramIdentity, ResolvedProgram } from './program';
export { resolveProgram } from './program';
export { resolveExecutable } from './resolve';
export { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, run } from './run';
export {
  type AppArmorUsernsRestriction,
  readAppArmorUsernsSysctl,
  recognizeAppArmorUsernsRestriction,
} from './sandbox/apparmor';
export { detectSandbox, detectSandboxAsync } from './sandbox/detect';
export type {
  Confinement,
  ProcessLimitKind,
  SandboxDetection,
  SandboxMechanism,
  SandboxNetwork,
  SandboxPolicy,
} from './sandbox/types';
export { SYSTEM_READ_PATHS } from './sandbox/types';
export type { Spawner } from './spawner';
export { createSpawner } from './spawner';
export type {
  AppliedLimits,
  ByteCounts,
  KillOutcome,
  OnExceed,
  RunOptions,
  RunOutcome,
  RunResult,
  SpawnInfo,
} from './types';
