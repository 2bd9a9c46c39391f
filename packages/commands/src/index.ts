// Public surface of @harness/commands: host configuration, the host clients, the run catalog, the
// host command tools, the Loom authoring tools and the function-calling adapter. The MCP adapter is
// the `@harness/commands/mcp` subpath.

export type { FunctionTools, OpenAiFunctionTool } from './adapters';
export { resultText, toFunctionTools } from './adapters';
export type { AuthoringContext, LoomAuthoringToolsOptions, ToolArtifact } from './authoring';
export {
  ALLOWLISTED_REFUSALS,
  createLoomAuthoringTools,
  directSessionRunId,
  LOOM_TOOL_NAMES,
  REF_PREFIXES,
  runArtifacts,
  toolsForCommentThread,
} from './authoring';
export type { Catalog, CatalogRow } from './catalog';
export { hiddenReason, readCatalog, suggest } from './catalog';
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
export { createCliHostClient, hostEnvironment } from './host/cli-client';
export { createHostClient } from './host/client';
export type { SocketClientOptions } from './host/socket-client';
export { BROKER_PROTOCOL, createSocketHostClient } from './host/socket-client';
export type {
  CallOptions,
  CommandAnswer,
  HostClient,
  ListOutcome,
  RunOutcome,
  RunRequest,
} from './host/types';
export type { HostCommandToolsOptions } from './host-tools';
export { createHostCommandTools, LIST_NOTICE } from './host-tools';
export type { Limits } from './limits';
export { LIMITS } from './limits';
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
export type { CreateRunOptions, PolicyDecision, RunState } from './run';
export { createRun } from './run';
export type {
  HarnessTool,
  JsonSchema,
  PromptSlot,
  ToolAnnotations,
  ToolContext,
  ToolProgress,
  ToolResult,
} from './tool';
