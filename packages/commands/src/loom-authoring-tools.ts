// Creating the three Loom authoring tools (seed 001) for one authoring configuration.
import type { AuthoringConfig } from './config';
import { createHostClient } from './host/client';
import type { HostClient } from './host/types';
import type { LoomToolSetup } from './loom-call';
import type { PatternResolver } from './pattern';
import type { HarnessTool } from './tool';
import { loomAuthoringContextTool } from './tools/loom-authoring-context';
import { loomComposeTool } from './tools/loom-compose';
import { loomInspectTool } from './tools/loom-inspect';

/** The names of the three Loom authoring tools. */
export const LOOM_TOOL_NAMES = ['loom_compose', 'loom_inspect', 'loom_authoring_context'] as const;

/** Options of {@link createLoomAuthoringTools}. */
export interface LoomAuthoringToolsOptions {
  /** The authoring configuration; without it the three tools are absent (unless `alwaysRegister`). */
  config: AuthoringConfig | undefined;
  /** Resolves held Pattern Instance tokens; without one, `pattern_token` components are refused. */
  resolver?: PatternResolver;
  /** Keep the tools present without a configuration; each call answers `not_configured`. */
  alwaysRegister?: boolean;
  /** The host client to use instead of the one the configuration names. */
  client?: HostClient;
}

/**
 * Creates `loom_compose`, `loom_inspect` and `loom_authoring_context` (host commands
 * `loom.compose`, `loom.inspect`, `loom.authoring-context`). Returns an empty list without a
 * configuration (unless `alwaysRegister`).
 */
export function createLoomAuthoringTools(options: LoomAuthoringToolsOptions): HarnessTool[] {
  if (options.config === undefined && options.alwaysRegister !== true) return [];
  const { config, resolver } = options;
  // One client for the tools' lifetime, except direct transports, where each call picks its own
  // (an interactive session writes under a run id of its own).
  const client =
    options.client ?? (config?.transport.kind === 'broker' ? createHostClient(config) : undefined);
  const setup: LoomToolSetup = { config, client, resolver };
  return [loomComposeTool(setup), loomInspectTool(setup), loomAuthoringContextTool(setup)];
}
