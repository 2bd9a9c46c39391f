// @harness/packs: the workspace file (zod schema, JSON Schema for editors), command packs,
// requirement probing, grants, tiers and the governance gate, the approvals interface, audit events
// and the pack runner. Seed 003; docs/packs.md. YAML, durations and sizes are read by @harness/config.
export type { AuditConfinement, AuditEvent, AuditInput, AuditPayload } from './audit';
export { auditEvent } from './audit';
export { credentialsFrom, REDACTED } from './credentials';
export type { PacksIssue, PacksIssueDetails } from './errors';
export { formatIssue, PacksError, PacksErrorCode } from './errors';
export type {
  ApprovalKey,
  ApprovalRequestInfo,
  ApprovalStore,
  Caller,
  DecideInput,
  Decision,
  DecisionCode,
  DecisionOutcome,
  MemoryApproval,
} from './governance';
export { actionLabel, approvalKey, createMemoryApprovalStore, decide, TIERS } from './governance';
export type { GrantResult } from './grants';
export { resolveGrants } from './grants';
export type { LoadOptions, LoadResult, WorkspaceSource } from './load';
export { loadWorkspace, RESERVED_PACK_IDS } from './load';
export type {
  NotifyConfig,
  NotifyTarget,
  NtfyTarget,
  SlackTarget,
  WebhookTarget,
} from './load/notify';
export { getCommand } from './lookup';
export type { InputsSchema, PackCommandRow } from './manifest';
export { inputsSchema, listCommands } from './manifest';
export type { CallPlan, PackCallPreview, PlanInput } from './preview';
export { previewPackCall } from './preview';
export type { RenderedCall } from './render';
export { credentialMarker, renderPackCommand } from './render';
export type { PackRunOutcome, PackRunResult, RunPackOptions, RunStatus } from './runner';
export { runPackCommand } from './runner';
export type { WorkspaceFile } from './schema';
export { workspaceJsonSchema, workspaceSchema } from './schema';
export type { StandardCommandInfo, StandardPackInfo } from './standard/catalog';
export { describeStandardPacks } from './standard/catalog';
export { STANDARD_PACKS } from './standard/library';
export type {
  Agent,
  CommandExample,
  CredentialSource,
  Effects,
  InputSchema,
  Label,
  OutputParse,
  Pack,
  PackCommand,
  Requirement,
  SandboxStatus,
  Tier,
  UnavailablePack,
  Workspace,
} from './types';
export {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  PROBE_TIMEOUT_MS,
} from './units';
