// Creating the three host command tools (seed 000) for one host configuration.
import type { CommandsConfig } from './config';
import { createHostClient } from './host/client';
import type { HostClient } from './host/types';
import { LIMITS } from './limits';
import type { HarnessTool } from './tool';
import { listCommandsTool } from './tools/list-commands';
import { runCommandTool, runReadCommandTool } from './tools/run-command';

/** Options of {@link createHostCommandTools}. */
export interface HostCommandToolsOptions {
  /**
   * The host configuration (see `readCommandsConfig`). Without it the three tools are absent:
   * the function returns an empty list.
   */
  config: CommandsConfig | undefined;
  /**
   * Keep the three tools present without a configuration, each call answering
   * `failed_to_deliver` / `not_configured` — for servers whose tool list must not change.
   */
  alwaysRegister?: boolean;
  /** The host client to use instead of the one the configuration names (tests, benchmarks). */
  client?: HostClient;
  /** Model bounds in bytes; defaults `LIMITS.listBound` and `LIMITS.outputBound`. */
  bounds?: { listBound?: number; outputBound?: number };
  /**
   * Sentences the listing's notice carries after its own, asked at each listing: what the model
   * should know of this host that no row says, e.g. that its commands run unconfined here.
   */
  notices?: () => readonly string[];
}

/**
 * Creates `list_commands`, `run_command` and `run_read_command` for a host configuration. Returns
 * an empty list when there is no configuration (unless `alwaysRegister`). The tools name no
 * command: what a run can call is what the host's broker lists for it.
 */
export function createHostCommandTools(options: HostCommandToolsOptions): HarnessTool[] {
  if (options.config === undefined && options.alwaysRegister !== true) return [];
  const client = options.client ?? (options.config ? createHostClient(options.config) : undefined);
  const listBound = options.bounds?.listBound ?? LIMITS.listBound;
  const outputBound = options.bounds?.outputBound ?? LIMITS.outputBound;
  return [
    listCommandsTool(client, listBound, options.notices),
    runCommandTool(client, outputBound),
    runReadCommandTool(client, outputBound),
  ];
}
