// Public surface of @harness/commands: host configuration, the host clients, the run catalog, the
// host command tools, the Loom authoring tools and the function-calling adapter. The MCP adapter is
// the `@harness/commands/mcp` subpath.

/** The `code` of the deprecation warning a `transport.queuePath` key raises (defined by `@harness/protocol`). */
export { QUEUE_PATH_DEPRECATION } from '@harness/protocol';
export type { FunctionTools, OpenAiFunctionTool } from './adapters';
export { toFunctionTools } from './adapters';
export type { ToolArtifact } from './artifacts';
export { runArtifacts } from './artifacts';
export { BatchReply, CallReply, callToolReply, RunCommandReply } from './call-reply';
export type { Catalog, CatalogRow } from './catalog';
export { toolsForCommentThread } from './comment-thread';
export type {
  AuthoringConfig,
  BrokerTransport,
  CommandsConfig,
  ConfigIssue,
  ConfigResult,
  DirectTransport,
  HostConfig,
} from './config';
export {
  AUTHORING_CONFIG_ENV,
  COMMANDS_CONFIG_ENV,
  parseAuthoringConfig,
  parseCommandsConfig,
  readAuthoringConfig,
  readCommandsConfig,
  resolveConfigPath,
} from './config';
export { CommandsError, CommandsErrorCode } from './errors';
export { failedToDeliver } from './failed-to-deliver';
export { createHostClient } from './host/client';
export type {
  CallOptions,
  CallRequest,
  HostClient,
  ListOutcome,
  SendFailure,
  SendOutcome,
} from './host/types';
export type { HostCommandToolsOptions } from './host-command-tools';
export { createHostCommandTools } from './host-command-tools';
export type { Limits } from './limits';
export { LIMITS } from './limits';
export type { LoomAuthoringToolsOptions } from './loom-authoring-tools';
export { createLoomAuthoringTools } from './loom-authoring-tools';
export type { AuthoringContext } from './loom-call';
export { directSessionRunId } from './loom-call';
export type {
  AdmittedEntry,
  AnsweredSummary,
  AnswerLostOutcome,
  BatchOutcome,
  CallOutcome,
  CallSummary,
  CancelledOutcome,
  Entry,
  ExecutedOutcome,
  FailedOutcome,
  FailedToDeliverOutcome,
  ListCommandsOutcome,
  ListEntry,
  ListingOutcome,
  LoomAuthoringContextOutcome,
  LoomComposedOutcome,
  LoomComposeOutcome,
  LoomContextOutcome,
  LoomInspectedOutcome,
  LoomInspectOutcome,
  LoomReceipt,
  LoomView,
  NotDeliveredOutcome,
  NotGrantedOutcome,
  RefusedOutcome,
  RunCommandOutcome,
  UncertainOutcome,
  UnknownCommandOutcome,
  WithheldEntry,
  WithheldSummary,
} from './outcome';
export { TOOL_OUTCOMES, ToolOutcome } from './outcome';
export { DeliveryCode, EntryStatus, Landed, OutcomeStatus, RefusalCode } from './outcome-codes';
export type {
  FabricSession,
  LocalPatternResolverOptions,
  PatternHandle,
  PatternRefusal,
  PatternResolver,
} from './pattern';
export {
  checkPatternHandle,
  createLocalPatternResolver,
  readFabricBinding,
  resolvePatternToken,
} from './pattern';
export { isErrorResult, resultText } from './result-text';
export type { CreateRunOptions, PolicyDecision, RunState } from './run';
export { createRun } from './run';
export type {
  HarnessTool,
  HostCallObserver,
  JsonSchema,
  PromptSlot,
  ToolAnnotations,
  ToolContext,
  ToolProgress,
  ToolResult,
} from './tool';
