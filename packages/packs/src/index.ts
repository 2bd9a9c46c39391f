// @harness/packs: the pack language — the zod schema of a command pack, its commands, inputs,
// templates and examples, requirement probing, argv safety and credential flow, sandbox policies —
// the standard packs, and the pack runner with its plan, render and preview. Seed 003;
// docs/packs.md. The workspace file that declares packs beside agents, grants and governance is
// @harness/workspace's; what it composes its load from is `@harness/packs/loader`. YAML, durations
// and sizes are read by @harness/config.
export type { CommandPreviewResult } from './command-preview';
export { runCommandPreview } from './command-preview';
export { credentialsFrom, REDACTED, redactDeep } from './credentials';
export type { PacksIssue, PacksIssueDetails } from './errors';
export { formatIssue, PacksError, PacksErrorCode } from './errors';
export type { ExitFailure } from './exit-failures';
export type { GitIdentity, GitIdentityOptions, GitIdentityRead } from './git-identity';
export { readGitIdentity } from './git-identity';
export type { FileSource, LoadOptions, PacksLoadResult } from './load';
export { loadPacks, RESERVED_PACK_IDS } from './load';
export type { PackScope } from './lookup';
export { allCommandIds, getCommand, getPack, unavailableFor } from './lookup';
export type { InputsSchema, PackCommandRow } from './manifest';
export { inputsSchema, listCommands } from './manifest';
export type { CallPlan, PackCallPreview, PlanInput } from './preview';
export { previewPackCall } from './preview';
export type { RenderedCall } from './render';
export { credentialMarker, renderPackCommand } from './render';
export type { PackRunOutcome, PackRunResult, RunPackOptions, SpawnStatus } from './runner';
export { runPackCommand } from './runner';
export type { StandardCommandInfo, StandardPackInfo } from './standard/catalog';
export { describeStandardPacks } from './standard/catalog';
export { STANDARD_PACKS } from './standard/library';
export type {
  CommandExample,
  CommandPreview,
  CredentialSource,
  Effects,
  InputSchema,
  Label,
  OutputParse,
  Pack,
  PackCommand,
  PackSet,
  Requirement,
  SandboxStatus,
  Tier,
  UnavailablePack,
} from './types';
export {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  PROBE_TIMEOUT_MS,
} from './units';
