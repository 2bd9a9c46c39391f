// Public surface of @harness/servers: one MCP client per upstream MCP server, owned by the broker.
// It takes a resolved spec (transport, confinement, bounds) and gives listings and calls; it knows
// nothing of workspaces, grants or tiers.
export { BACKOFF_FIRST_MS, BACKOFF_MAX_MS, backoffMs, createServerClient } from './client';
export { refusal } from './session';
export type {
  CallOptions,
  CallOutcome,
  CallProgress,
  HttpTransportSpec,
  ListingOutcome,
  ServerClient,
  ServerSpec,
  ServerState,
  StdioTransportSpec,
  UpstreamTool,
} from './types';
