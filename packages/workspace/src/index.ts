// @harness/workspace: the workspace file — its zod schema (JSON Schema for editors), its settings
// (sandbox_mode, approval waits and timeouts, notify), the command packs it declares (loaded by
// @harness/packs), its agents and their grants — and the governance gate (tier × effects × grants ×
// scopes → a decision), the approvals interface and audit events of a pack-command call, and the
// MCP servers it governs (`mcp_servers`). Seed 003; docs/packs.md, docs/notify.md, docs/servers.md.
export type { AuditConfinement, AuditEvent, AuditInput, AuditPayload, ServerCallRecord } from './audit';
export { auditEvent } from './audit';
export type {
  ApprovalKey,
  ApprovalRequestInfo,
  ApprovalStore,
  Caller,
  DecideInput,
  Decision,
  DecisionCode,
  DecisionOutcome,
  Gated,
  MemoryApproval,
} from './governance';
export { actionLabel, approvalKey, createMemoryApprovalStore, decide, gatedOf, TIERS } from './governance';
export type { GrantResult } from './grants';
export { resolveGrants } from './grants';
export { loadWorkspace } from './load';
export type { NotifyConfig, NotifyTarget, NtfyTarget, SlackTarget, WebhookTarget } from './notify';
export type { WorkspaceFile } from './schema';
export { workspaceJsonSchema, workspaceSchema } from './schema';
export type { ToolIdMap } from './server-tool-ids';
export { mapToolIds, toolMemberId } from './server-tool-ids';
export type { McpServer, ServerSecrets, ServerTransport } from './servers';
export { renderServerSecrets, serverToolEffects, serverToolTier } from './servers';
export type { Agent, LoadResult, Workspace } from './types';
