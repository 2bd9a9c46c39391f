// One place that turns the CLI's configuration (flags, environment, run manifest) into a run and its
// tools. `serve`, `call`, `packs list` and `demo` all open a session the same way, so a tool behaves
// identically whichever command reaches it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  AuthoringConfig,
  CommandsConfig,
  HarnessTool,
  PromptSlot,
  RunState,
  ToolContext,
  ToolOutcome,
} from '@harness/commands';
import {
  brokerAnswers,
  bundledLoomCli,
  describeServes,
  type EmbeddedHost,
  type EmbeddedLocation,
  type EmbeddedOptions,
  embeddedLocation,
  planEmbedded,
  startEmbeddedHost,
} from './embedded';
import { CliError, describeFailure } from './errors';
import { type Project, projectFor, projectLine } from './project';
import { withExecute } from './tool-wrap';

/** The host command tools, which need `--loom-commands-config`. */
export const COMMAND_TOOLS = ['list_commands', 'run_command', 'run_read_command'] as const;
/** The Loom authoring tools, which need `--loom-authoring-config`. */
export const AUTHORING_TOOLS = ['loom_compose', 'loom_inspect', 'loom_authoring_context'] as const;
/** Every tool the CLI can serve: its parent tools, in the order they are registered. */
export const ALL_TOOLS = [...COMMAND_TOOLS, ...AUTHORING_TOOLS] as const;

const MODES = ['disabled', 'observe', 'enforce-explicit', 'enforce-strict'] as const;
const SLOTS = ['direct-command', 'context', 'quote', 'absent'] as const;

/** Everything a session can be configured with; each field comes from a flag, else its environment default. */
export interface SessionOptions {
  instance?: string | undefined;
  /** The workspace file an embedded instance is created with (default: the example workspace). */
  workspace?: string | undefined;
  /** The agent the embedded broker serves (default `demo`, the example workspace's). */
  agent?: string | undefined;
  /** A scope file for the embedded broker; wins over `agent`. */
  scope?: string | undefined;
  /** The embedded broker's retention rule in ms (docs/host.md, "Retention"); default none. */
  retentionMs?: number | undefined;
  /** Never start the embedded default: without a configuration file its tools are absent. */
  noEmbedded?: boolean | undefined;
  /**
   * Create and change nothing (`packs list`): the embedded host runs on a scratch instance in the
   * temp directory, made with what the instance would serve (its recorded workspace and agent when
   * it exists, else the flags), and removed at `close()`.
   */
  scratch?: boolean | undefined;
  commandsConfig?: string | undefined;
  authoringConfig?: string | undefined;
  allowTools?: string[] | undefined;
  manifest?: string | undefined;
  cfcMode?: string | undefined;
  maxConfidentiality?: string | undefined;
  promptSlot?: string | undefined;
  jobId?: string | undefined;
  fabricApiUrl?: string | undefined;
  fabricIdentity?: string | undefined;
  fabricSpace?: string | undefined;
  /** Lines describing where the data lives go here (stderr for serve, so stdio stays clean). */
  log?: ((line: string) => void) | undefined;
  /** The project the embedded default serves; set by {@link openSession} from where it runs. */
  project?: Project | undefined;
}

/** An open session: the run, its tools, and how to call one. */
export interface Session {
  /** The session's default run (one per `call`, per stdio connection). */
  run: RunState;
  tools: HarnessTool[];
  /** Where the embedded default keeps its data; `undefined` with a host configuration. */
  location: EmbeddedLocation | undefined;
  /**
   * Settles once the embedded host has started (at once without one). Opened with `background`, the
   * first call begins the start, and it rejects with the reason the host did not start: the error a
   * foreground open throws.
   */
  ready(): Promise<void>;
  /** A fresh run with this session's mode and ceiling (one per MCP session over HTTP). */
  newRun(id: string): RunState;
  context(signal?: AbortSignal, run?: RunState): ToolContext;
  /** Calls one tool; `signal` cancels it, and stops it once sent (its command's processes end). */
  call(name: string, input: unknown, signal?: AbortSignal): Promise<ToolOutcome>;
  close(): Promise<void>;
}

/** A run manifest: the operator's per-run choices, in one JSON file. Flags win over it. */
interface RunManifest {
  allowTools?: string[];
  cfcMode?: string;
  maxConfidentiality?: unknown;
  promptSlot?: string;
  jobId?: string;
}

function readManifest(path: string | undefined): RunManifest {
  if (path === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError('config', `cannot read the run manifest ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(
      'config',
      `the run manifest ${path} must be a JSON object with allowTools, cfcMode, maxConfidentiality, promptSlot or jobId`,
    );
  }
  const known = new Set(['allowTools', 'cfcMode', 'maxConfidentiality', 'promptSlot', 'jobId']);
  const unknown = Object.keys(value).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw new CliError(
      'config',
      `the run manifest ${path} has unknown field(s) ${unknown.join(', ')}; expected ${[...known].join(', ')}`,
    );
  return value as RunManifest;
}

function parseCeiling(text: unknown): unknown {
  if (text === undefined || typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    // A bare comma-separated list of atoms is the short form: `--max-confidentiality team,person`.
    return text === '' ? [] : text.split(',').map((s) => s.trim());
  }
}

/**
 * Validates the flags that must fail before anything starts: `--allow-tool` naming a tool whose
 * configuration is missing, an unknown mode or slot, a partial Fabric binding.
 */
export async function resolveOptions(options: SessionOptions) {
  const commands = await import('@harness/commands');
  const manifest = readManifest(options.manifest);
  const commandsPath = commands.resolveConfigPath({
    flag: options.commandsConfig,
    env: process.env[commands.COMMANDS_CONFIG_ENV],
  });
  if (!commandsPath.ok)
    throw new CliError(
      'config',
      `--loom-commands-config: ${commandsPath.issues.map((i) => i.message).join('; ')}`,
    );
  const authoringPath = commands.resolveConfigPath({
    flag: options.authoringConfig,
    env: process.env[commands.AUTHORING_CONFIG_ENV],
  });
  if (!authoringPath.ok)
    throw new CliError(
      'config',
      `--loom-authoring-config: ${authoringPath.issues.map((i) => i.message).join('; ')}`,
    );
  const embedded =
    options.noEmbedded !== true && commandsPath.value === undefined && authoringPath.value === undefined;
  for (const [flag, value] of [
    ['--workspace', options.workspace],
    ['--agent', options.agent],
    ['--scope', options.scope],
    ['--retention', options.retentionMs === undefined ? undefined : String(options.retentionMs)],
  ] as const) {
    if (value !== undefined && !embedded) {
      throw new CliError(
        'usage',
        `${flag} applies to the embedded default only; with a host configuration the host's broker decides what is served`,
      );
    }
  }
  const configured = (name: string): boolean =>
    embedded ||
    ((COMMAND_TOOLS as readonly string[]).includes(name)
      ? commandsPath.value !== undefined
      : authoringPath.value !== undefined);
  const needs = (name: string): string =>
    (COMMAND_TOOLS as readonly string[]).includes(name)
      ? `--loom-commands-config (or ${commands.COMMANDS_CONFIG_ENV}); without it the command tools are absent`
      : `--loom-authoring-config (or ${commands.AUTHORING_CONFIG_ENV}); without it the Loom tools are absent`;

  // An explicit --allow-tool is the operator's argument: naming a tool that cannot exist is refused
  // at parsing (seed 000, HC-06; LA-06 decided the same way). A run manifest is a profile that may
  // serve several configurations, so a grant it holds without the configuration leaves the tool
  // absent, with a warning (LA-10).
  const fromFlag = options.allowTools !== undefined;
  const requested = options.allowTools ?? manifest.allowTools;
  if (requested !== undefined && !Array.isArray(requested))
    throw new CliError('config', `the run manifest's allowTools must be a list of tool names`);
  const warnings: string[] = [];
  let allowTools: string[] | undefined;
  if (requested !== undefined) {
    allowTools = [];
    for (const name of requested) {
      if (!(ALL_TOOLS as readonly string[]).includes(name)) {
        throw new CliError(
          fromFlag ? 'usage' : 'config',
          `${fromFlag ? '--allow-tool' : 'run manifest allowTools:'} ${name}: no such tool; expected one of ${ALL_TOOLS.join(', ')}`,
        );
      }
      if (!configured(name)) {
        if (fromFlag) throw new CliError('usage', `--allow-tool ${name} needs ${needs(name)}`);
        warnings.push(`run manifest grants ${name}, but it needs ${needs(name)}; left out`);
        continue;
      }
      allowTools.push(name);
    }
  }
  const mode = options.cfcMode ?? manifest.cfcMode ?? 'enforce-explicit';
  if (!(MODES as readonly string[]).includes(mode))
    throw new CliError('usage', `--cfc-mode must be one of ${MODES.join(', ')}, found '${mode}'`);
  const slot = options.promptSlot ?? manifest.promptSlot ?? 'direct-command';
  if (!(SLOTS as readonly string[]).includes(slot))
    throw new CliError('usage', `--prompt-slot must be one of ${SLOTS.join(', ')}, found '${slot}'`);
  const fabric = commands.readFabricBinding(
    { apiUrl: options.fabricApiUrl, identity: options.fabricIdentity, space: options.fabricSpace },
    process.env,
  );
  if (!fabric.ok)
    throw new CliError(
      'usage',
      `a Fabric binding needs all three of --fabric-api-url, --fabric-identity, --fabric-space; missing ${fabric.missing.join(', ')}`,
    );
  const ceiling = parseCeiling(options.maxConfidentiality ?? manifest.maxConfidentiality);
  try {
    // The same reading the run will do, done before anything starts (LA-14).
    commands.createRun({ mode: mode as (typeof MODES)[number], ceiling });
  } catch (error) {
    throw new CliError(
      'usage',
      `--max-confidentiality: ${(error as Error).message}; e.g. --max-confidentiality team,person or '[{"anyOf":["team"]}]' ('' = public data only)`,
      { cause: error },
    );
  }
  return {
    commandsPath: commandsPath.value,
    authoringPath: authoringPath.value,
    embedded,
    allowTools,
    warnings,
    mode: mode as (typeof MODES)[number],
    slot: slot === 'absent' ? undefined : (slot as PromptSlot),
    ceiling,
    jobId: options.jobId ?? manifest.jobId,
    fabric: fabric.value,
  };
}

/**
 * Opens a session: reads the configuration files (or starts the embedded default) and builds the
 * tools. With `background`, the embedded host is not started here: the tools exist at once (their
 * definitions need no host), the start begins at the first `ready()` or call, each call waits for it,
 * and a start that fails makes every call answer `failed_to_deliver` / `host_unavailable` with the
 * reason, while `ready()` rejects with it.
 */
export async function openSession(
  options: SessionOptions,
  { background = false }: { background?: boolean } = {},
): Promise<Session> {
  const resolved = await resolveOptions(options);
  for (const warning of resolved.warnings) options.log?.(`harness: warning: ${warning}`);
  const commands = await import('@harness/commands');
  let commandsConfig: CommandsConfig | undefined;
  let authoringConfig: AuthoringConfig | undefined;
  let location: EmbeddedLocation | undefined;
  let ready = async (): Promise<void> => {};
  let host: EmbeddedSessionHost | undefined;
  if (resolved.embedded) {
    // Run in a project `harness init` set up, and given no instance or workspace, serve that project.
    const project = projectFor(options);
    if (project !== undefined) options.log?.(projectLine(project));
    host = await embeddedSessionHost({ ...options, project });
    location = host.location;
    commandsConfig = host.config;
    authoringConfig = host.config;
    const start = host.start;
    ready = async () => {
      await start();
    };
    if (!background) {
      try {
        await ready();
      } catch (error) {
        host.dispose();
        throw error;
      }
    }
  } else {
    if (resolved.commandsPath !== undefined)
      commandsConfig = unwrap(commands.readCommandsConfig(resolved.commandsPath), resolved.commandsPath);
    if (resolved.authoringPath !== undefined)
      authoringConfig = unwrap(commands.readAuthoringConfig(resolved.authoringPath), resolved.authoringPath);
  }

  const resolver =
    resolved.fabric === undefined
      ? undefined
      : commands.createLocalPatternResolver({ session: resolved.fabric });
  let tools: HarnessTool[] = [
    ...commands.createHostCommandTools({
      config: commandsConfig,
      notices: () => host?.notices() ?? [],
    }),
    ...commands.createLoomAuthoringTools({ config: authoringConfig, ...(resolver ? { resolver } : {}) }),
  ];
  if (host !== undefined) {
    const onHost = host.start;
    tools = tools.map((tool) => onEmbeddedHost(tool, onHost, commands));
  }
  if (resolved.allowTools !== undefined) {
    const allowed = new Set(resolved.allowTools);
    tools = tools.filter((t) => allowed.has(t.name));
  }
  const newRun = (id: string): RunState =>
    commands.createRun({ mode: resolved.mode, ceiling: resolved.ceiling, id });
  let run: RunState;
  try {
    run = newRun('run');
  } catch (error) {
    await host?.close();
    throw new CliError('usage', `--max-confidentiality: ${(error as Error).message}`, { cause: error });
  }
  const context = (signal?: AbortSignal, forRun: RunState = run): ToolContext => ({
    run: forRun,
    slot: resolved.slot,
    signal,
    jobId: resolved.jobId,
  });
  return {
    run,
    tools,
    location,
    ready,
    newRun,
    context,
    async call(name, input, signal) {
      const tool = tools.find((t) => t.name === name);
      if (tool === undefined) {
        throw new CliError(
          'usage',
          `no tool '${name}' in this session; available: ${tools.map((t) => t.name).join(', ') || '(none: no host configuration)'}`,
        );
      }
      // One call, one signal: its cancellation (Ctrl-C on `harness call`) names this call, so it
      // also stops the call once sent, as an MCP client's cancellation does.
      return tool.execute(input, { ...context(signal), stopStarted: signal !== undefined });
    },
    close: async () => {
      await host?.close();
    },
  };
}

/** A session's embedded host: started on demand, replaced when a shared one has gone. */
interface EmbeddedSessionHost {
  location: EmbeddedLocation;
  /** The broker transport both tool sets reach it through. */
  config: CommandsConfig & AuthoringConfig;
  /** Starts it (once); true when it replaced a shared broker that had gone. */
  start(): Promise<boolean>;
  /** The sentences the listing's notice adds (that commands run unconfined, once it is known). */
  notices(): string[];
  /** Removes what the session made for itself (a scratch instance), without closing the host. */
  dispose(): void;
  /** Closes the host, then disposes. */
  close(): Promise<void>;
}

async function embeddedSessionHost(options: SessionOptions): Promise<EmbeddedSessionHost> {
  const embedding = options.scratch === true ? await scratchEmbedding(options) : liveEmbedding(options);
  const location = embedding.location;
  const transport = { kind: 'broker' as const, socketPath: location.socketPath, client: 'socket' as const };
  let starting: Promise<EmbeddedHost> | undefined;
  let unconfined: string | undefined;
  let warned = false;
  const begin = () =>
    startEmbeddedHost(embedding.host).then(async (embedded) => {
      embedding.describe(embedded, options.log);
      const warning = await unconfinedWarning(embedded.workspaceFile);
      unconfined = warning?.message;
      // Once per session, however often a gone broker is replaced.
      if (warning !== undefined && !warned) {
        warned = true;
        options.log?.(`harness: warning: ${warning.line}`);
      }
      return embedded;
    });
  // True when it replaced a shared broker that had gone. The broker of another process (a
  // `harness call` that was running when this one started) goes when that process ends: the first
  // call after that starts this session's own. A replacement that fails fails that call only: the
  // next call looks again, rather than every later call answering the one failure.
  const start = async (): Promise<boolean> => {
    starting ??= begin();
    const current = starting;
    const embedded = await current;
    if (!embedded.shared || (await brokerAnswers(embedded.location.socketPath))) return false;
    if (starting === current) {
      const replacing = begin();
      starting = replacing;
      replacing.catch(() => {
        if (starting === replacing) starting = current;
      });
    }
    await starting;
    return true;
  };
  return {
    location,
    config: { cliPath: bundledLoomCli(), transport },
    start,
    notices: () => (unconfined === undefined ? [] : [unconfined]),
    dispose: embedding.dispose,
    async close() {
      try {
        await closeHost(starting);
      } finally {
        embedding.dispose();
      }
    },
  };
}

/** Where a session's embedded host lives, what it is started with, and what the session says of it. */
interface Embedding {
  /** The instance whose socket this session's tools reach. */
  location: EmbeddedLocation;
  host: EmbeddedOptions;
  /** The lines on stderr once the host has started. */
  describe(embedded: EmbeddedHost, log: ((line: string) => void) | undefined): void;
  /** Removes what the session made for itself. */
  dispose(): void;
}

/** The embedded default itself: the instance the flags name, created on first use. */
function liveEmbedding(options: SessionOptions): Embedding {
  return {
    location: embeddedLocation(options.instance, options.project),
    host: {
      instance: options.instance,
      workspace: options.workspace,
      agent: options.agent,
      scope: options.scope,
      retentionMs: options.retentionMs,
      project: options.project,
    },
    describe: logEmbedded,
    dispose: () => {},
  };
}

/**
 * A scratch instance in the temp directory serving what the instance the flags name serves (or
 * would serve, when it does not exist): a command that only reads (`packs list`) neither creates
 * the instance nor writes to its store, registry or socket. Flags that contradict an existing
 * instance are refused as they are for it.
 */
async function scratchEmbedding(options: SessionOptions): Promise<Embedding> {
  const plan = await planEmbedded(options);
  const root = mkdtempSync(join(tmpdir(), 'harness-scratch-'));
  const instance = join(root, 'instance');
  // A broker records its instance in the user's registry of instances, which confined commands
  // hide (docs/security.md); the scratch one records it in a registry of its own instead. No
  // command runs here, so nothing needs the person's registry.
  const stateHome = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = join(root, 'state');
  // Likewise the record of a new instance's audit key (the user config): the scratch one is not kept.
  const configHome = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = join(root, 'config');
  const { serves, workspaceFile } = plan;
  const dir = plan.location.instanceDir;
  return {
    location: embeddedLocation(instance),
    host: {
      instance,
      workspace: workspaceFile,
      ...('agent' in serves ? { agent: serves.agent } : { scope: serves.scopeFile }),
    },
    describe: (_embedded, log) =>
      log?.(
        plan.exists
          ? `harness: read what the instance ${dir} serves, ${describeServes(serves)} of ${workspaceFile}, through a scratch copy; the instance is not changed`
          : `harness: read what a new instance at ${dir} would serve, ${describeServes(serves)} of ${workspaceFile}; nothing is created`,
      ),
    dispose: () => {
      if (stateHome === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = stateHome;
      if (configHome === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = configHome;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The warning `packs check` prints for the workspace where no confinement mechanism works under
 * `sandbox_mode: preferred` (its commands then run unconfined): the whole line, and its message.
 * Nothing where a mechanism works (the probe the host's start made is cached), where the mode is
 * `required` or `off`, or where the workspace no longer loads.
 */
async function unconfinedWarning(
  workspaceFile: string,
): Promise<{ line: string; message: string } | undefined> {
  const { detectSandboxAsync } = await import('@harness/exec');
  if ((await detectSandboxAsync()).available) return undefined;
  const { formatIssue } = await import('@harness/packs');
  const { loadWorkspace } = await import('@harness/workspace');
  const loaded = await loadWorkspace({ file: workspaceFile }).catch(() => undefined);
  if (loaded?.ok !== true) return undefined;
  const issue = loaded.warnings.find(
    (w) => w.code === 'sandbox_unavailable' && w.details.mode === 'preferred',
  );
  return issue === undefined ? undefined : { line: formatIssue(issue), message: issue.message };
}

/** Closes the embedded host once its start has settled; a host that did not start has nothing to close. */
async function closeHost(starting: Promise<EmbeddedHost> | undefined): Promise<void> {
  const embedded = await starting?.catch(() => undefined);
  await embedded?.close();
}

/** The lines saying where the embedded default keeps its data (stderr for serve). */
function logEmbedded(embedded: EmbeddedHost, log: ((line: string) => void) | undefined): void {
  log?.(
    `harness: embedded host ${embedded.created ? 'created' : 'opened'} at ${embedded.location.instanceDir} (chosen by ${embedded.location.chosenBy}; set HARNESS_HOME or --instance to move it)`,
  );
  log?.(
    `harness: broker socket ${embedded.location.socketPath}${embedded.shared ? ' (already served by another harness process; using it)' : ''}, workspace ${embedded.workspaceFile}`,
  );
  // The broker opened the store before it listened: reachable, unless another process serves it.
  log?.(
    `harness: store ${embedded.store}${embedded.shared ? ' (opened by the harness process that serves the socket)' : ': reachable'}`,
  );
}

/**
 * A tool of the embedded host: each call waits for the host's start (a start that failed answers
 * `failed_to_deliver` / `host_unavailable` with the one line serve printed for it, without the
 * `harness: ` prefix: nothing was sent), and a call that sent nothing because the broker this
 * session shared had gone is made once more, against the session's own broker.
 */
function onEmbeddedHost(
  tool: HarnessTool,
  startHost: () => Promise<boolean>,
  commands: Pick<
    typeof import('@harness/commands'),
    'DeliveryCode' | 'failedToDeliver' | 'Landed' | 'OutcomeStatus'
  >,
): HarnessTool {
  const { DeliveryCode, failedToDeliver } = commands;
  return withExecute(tool, async (input, ctx) => {
    try {
      await startHost();
    } catch (error) {
      const line = describeFailure(error, false).lines[0] ?? '';
      return failedToDeliver(ctx.run, DeliveryCode.host_unavailable, line.replace(/^harness: /, ''));
    }
    const result = await tool.execute(input, ctx);
    if (!sentNothing(result, commands) || !(await startHost().catch(() => false))) return result;
    return tool.execute(input, ctx);
  });
}

/**
 * Whether a result says that nothing reached the host (`landed: "no"`), so the same call may be made
 * again. A batch never does: its calls landed or not one by one.
 */
function sentNothing(
  result: ToolOutcome,
  { Landed, OutcomeStatus: status }: Pick<typeof import('@harness/commands'), 'Landed' | 'OutcomeStatus'>,
): boolean {
  switch (result.status) {
    case status.failed_to_deliver:
    case status.failed:
      return result.landed === Landed.no;
    case status.not_granted:
    case status.cancelled:
      return true;
    case status.ok:
    case status.executed:
    case status.batch:
    case status.unknown_command:
    case status.refused:
    case status.uncertain:
      return false;
    default:
      // The compiler proves no status is left; a value built past the types is never made again.
      result satisfies never;
      return false;
  }
}

function unwrap<T>(
  result: { ok: true; value: T } | { ok: false; issues: { path: string; message: string }[] },
  file: string,
): T {
  if (result.ok) return result.value;
  throw new CliError('config', `${file}: ${result.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
}
