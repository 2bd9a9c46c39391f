// @harness/runner: seed 004's one-shot runner. Pure planning (load, planSpawn) is separate from the
// process supervisor, so every argv, prompt and environment can be checked without a process.
export type { Adapter } from './adapters';
export { ADAPTERS, genericOneShot } from './adapters';
export { describeHarness } from './describe';
export type { RunnerIssue } from './errors';
export { formatRunnerIssue, RunnerError, RunnerErrorCode } from './errors';
export type { RunnerLoadOptions, RunnerLoadResult, RunnerSource } from './load';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_DELIVERY_RETENTION_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_RUN_MAX_OUTPUT_BYTES,
  DEFAULT_RUN_TIMEOUT_MS,
  loadRunnerConfig,
} from './load';
export type { Cell, MatrixKey } from './matrix';
export { cell, MATRIX_KEYS } from './matrix';
export type { Observation, RunToObserve, TranscriptSummary } from './observe';
export { observeRun, readClaudeCode, readCodex, readPi, TRANSCRIPT_SOURCES } from './observe';
export type { JobRequest, PlanFailure, PlanOptions, PlanResult, SpawnPlan } from './plan';
export { BASE_ENV_NAMES, planSpawn } from './plan';
export type { AuditLine } from './receiver';
export type { JobStatus, RunRecord } from './records';
export type { AgentKind, HarnessEntry, HarnessKind, PromptDelivery, RunnerFile } from './schema';
export {
  AGENT_KINDS,
  HARNESS_KINDS,
  PROMPT_DELIVERIES,
  runnerFileSchema,
  runnerJsonSchema,
  SCHEMES,
} from './schema';
export { DELIVERY_HEADERS, EVENT_HEADERS, SIGNATURE_HEADERS, signBody, verifySignature } from './signature';
export type { AcceptedBody, DeliveryToAccept, NewRun, ReceivedDelivery } from './store';
export { RunStore } from './store';
export type { SupervisorOptions } from './supervisor';
export { runnerPaths, Supervisor } from './supervisor';
export type { Harness, PromptSpec, RunnerConfig, Source, When } from './types';
