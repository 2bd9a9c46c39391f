// The configuration flags `serve`, `call` and `packs list` share, and their mapping onto a session.
import type { SessionOptions } from './session';

/** parseArgs options of every command that opens a session. */
export const sessionFlags = {
  instance: { type: 'string' },
  workspace: { type: 'string' },
  agent: { type: 'string' },
  scope: { type: 'string' },
  'no-embedded': { type: 'boolean' },
  'loom-commands-config': { type: 'string' },
  'loom-authoring-config': { type: 'string' },
  'allow-tool': { type: 'string', multiple: true },
  manifest: { type: 'string' },
  'cfc-mode': { type: 'string' },
  'max-confidentiality': { type: 'string' },
  'prompt-slot': { type: 'string' },
  'job-id': { type: 'string' },
  'fabric-api-url': { type: 'string' },
  'fabric-identity': { type: 'string' },
  'fabric-space': { type: 'string' },
} as const;

/** The help text of {@link sessionFlags}. */
export const sessionFlagsHelp = `Your workspace (the embedded default, used when no host configuration is given):
  --workspace <file>                  the workspace an instance is created with (default: the
                                      example workspace); an instance keeps it
  --agent <id>                        the workspace agent it serves (default: the workspace
                                      file's only agent, else demo); recorded at creation, so
                                      later commands need not repeat it
  --instance <dir>                    where the instance lives (env HARNESS_HOME; default
                                      ~/.local/share/harness/default)
  Run in a project harness init set up (a directory at or above this one holds
  .harness/workspace.yaml), and given neither --instance, --workspace nor HARNESS_HOME: that
  project's instance, workspace and agent, said on stderr in one line.
  --scope <file>                      a scope file to serve instead of --agent (run, agent, grants
                                      subset, readOnly; see docs/host.md)
  --no-embedded                       never start the embedded default: without a configuration
                                      file the tools it configures are absent

A host of your own (flags win over their environment defaults):
  --loom-commands-config <abs path>   host config of list_commands/run_command/run_read_command
                                      (env CF_HARNESS_LOOM_COMMANDS_CONFIG); broker transport only
  --loom-authoring-config <abs path>  host config of loom_compose/loom_inspect/loom_authoring_context
                                      (env CF_HARNESS_LOOM_AUTHORING_CONFIG); broker or direct
  --allow-tool <name>                 serve only these tools (repeatable); naming a tool whose
                                      configuration is missing is refused

Run policy and information flow:
  --manifest <file.json>              run manifest: {allowTools, cfcMode, maxConfidentiality, promptSlot, jobId}
  --cfc-mode <mode>                   disabled | observe | enforce-explicit (default) | enforce-strict
  --max-confidentiality <ceiling>     the run's observation ceiling: JSON clauses, or atoms a,b; '' = public only
  --prompt-slot <slot>                the task's slot: direct-command (default) | context | quote | absent
  --job-id <id>                       the host job id for this run (never taken from the model)
  --fabric-api-url, --fabric-identity, --fabric-space
                                      a Fabric binding, all three or none
                                      (env CF_HARNESS_FABRIC_API_URL, _IDENTITY, _SPACE)`;

/** Maps parsed flag values onto {@link SessionOptions}. */
export function sessionOptions(
  values: Record<string, string | boolean | string[] | undefined>,
): SessionOptions {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const list = values['allow-tool'];
  return {
    instance: str('instance'),
    workspace: str('workspace'),
    agent: str('agent'),
    scope: str('scope'),
    noEmbedded: values['no-embedded'] === true,
    commandsConfig: str('loom-commands-config'),
    authoringConfig: str('loom-authoring-config'),
    allowTools: Array.isArray(list) ? list : undefined,
    manifest: str('manifest'),
    cfcMode: str('cfc-mode'),
    maxConfidentiality: str('max-confidentiality'),
    promptSlot: str('prompt-slot'),
    jobId: str('job-id'),
    fabricApiUrl: str('fabric-api-url'),
    fabricIdentity: str('fabric-identity'),
    fabricSpace: str('fabric-space'),
  };
}
