import type { PackSet, PacksIssue } from '@harness/packs';
import type { NotifyConfig } from './notify';
import type { McpServer } from './servers';

/** An agent declared in the workspace: the scopes it holds and its grants as written. */
export interface Agent {
  readonly id: string;
  readonly scopes: readonly string[];
  readonly grants: readonly string[];
  /** Manifest ids its grants resolve to (unavailable packs contribute nothing); `<server>.<tool>` grants as written. */
  readonly commands: readonly string[];
  /** Servers it is granted whole (`server:<id>`): every tool they list, whatever its effects (CP-69). */
  readonly servers: readonly string[];
  /** Whether the host's `loom.*` built-ins are offered to it (`builtins`, default `true`). */
  readonly builtins: boolean;
}

/**
 * A loaded workspace: its packs as @harness/packs loads them (offered, left out, confined under the
 * workspace's `sandbox_mode`), its agents with their grants resolved, and its settings. Immutable,
 * every default resolved, every template checked. Only {@link loadWorkspace} produces one; every
 * pack lookup, plan and run of @harness/packs takes it as the pack set it is.
 */
export interface Workspace extends PackSet {
  readonly agents: readonly Agent[];
  /** The upstream MCP servers it governs (`mcp_servers`, docs/servers.md), in file order. */
  readonly servers: readonly McpServer[];
  /** The `notify` block: who is told of approvals waiting for a person (docs/notify.md); absent: nobody. */
  readonly notify?: NotifyConfig;
}

/** What {@link loadWorkspace} returns: the workspace and its warnings, or every issue found. */
export type LoadResult =
  | { readonly ok: true; readonly workspace: Workspace; readonly warnings: readonly PacksIssue[] }
  | { readonly ok: false; readonly issues: readonly PacksIssue[] };
