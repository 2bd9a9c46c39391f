// The embedded default: with no host configuration, `harness serve` and `harness demo` open (or
// create) an instance directory over the example workspace, start a broker for the default scope in
// this process, and reach it through the socket fast path, so an MCP client works at once.
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { type InstanceChosenBy, instanceLocation } from '@harness/config/instance';
import type { InstanceInfo, InstanceServes, ScopeFile } from '@harness/host';
import { CliError, describeFailure } from './errors';
import { type Project, soleAgent } from './project';

const require = createRequire(import.meta.url);

/** Where the embedded default keeps its data, and how it was chosen. */
export interface EmbeddedLocation {
  instanceDir: string;
  socketPath: string;
  chosenBy: InstanceChosenBy;
}

/** The `loom` host CLI that ships beside this one. */
export function bundledLoomCli(): string {
  return join(dirname(require.resolve('@harness/loom/package.json')), 'dist', 'loom.js');
}

/**
 * The example workspace this package ships (`dist/examples/demo/`, copied from the repository's
 * `fixtures/workspaces/demo/` at build), found from the package's own root wherever it is installed.
 */
export function exampleWorkspace(): string {
  const file = join(
    dirname(require.resolve('@harness/cli/package.json')),
    'dist',
    'examples',
    'demo',
    'workspace.yaml',
  );
  if (!existsSync(file)) {
    throw new CliError(
      'config',
      `the example workspace was not found at ${file} (this installation of @harness/cli is incomplete; in a clone, run pnpm build); or pass --workspace <file>`,
    );
  }
  return file;
}

/** The default scope: the example workspace's `demo` agent, every grant it holds. */
export const defaultScope: ScopeFile = { run: 'harness-serve', agent: 'demo' };

/** What `--scope` / `--agent` ask the instance to serve; `undefined` when neither is given. */
export function requestedServes(options: {
  agent?: string | undefined;
  scope?: string | undefined;
}): InstanceServes | undefined {
  if (options.scope !== undefined) return { scopeFile: resolve(options.scope) };
  if (options.agent !== undefined) return { agent: options.agent };
  return undefined;
}

/** What an instance serves, as `agent "me"` or `the scope file /abs/scope.yaml`. */
export function describeServes(serves: InstanceServes): string {
  return 'agent' in serves ? `agent "${serves.agent}"` : `the scope file ${serves.scopeFile}`;
}

/** The scope a broker is started with for what an instance serves. */
export function scopeOf(serves: InstanceServes): string | ScopeFile {
  return 'agent' in serves ? { ...defaultScope, agent: serves.agent } : serves.scopeFile;
}

/**
 * Picks the instance directory the way every `harness` and `loom` command does (`--instance`, else
 * `$HARNESS_HOME`, else the instance of the `project` the command runs in, else
 * `$XDG_DATA_HOME/harness/default`, `~/.local/share/harness/default`; see `instanceLocation` in
 * `@harness/config/instance`), and the broker's socket path for it.
 */
export function embeddedLocation(flag: string | undefined, project?: Project | undefined): EmbeddedLocation {
  const { instanceDir, chosenBy } = instanceLocation({
    flag,
    env: process.env,
    project: project?.instanceDir,
  });
  // A Unix socket path is limited to about 104 bytes; fall back to a private runtime directory when
  // the instance path is too deep for one: $XDG_RUNTIME_DIR (the user's own, 0700) when set, else
  // a directory in the temp dir. The broker creates it 0700, or refuses it when it is not private
  // (another user could have made it to swap the socket), before binding; clients check before
  // connecting.
  let socketPath = join(instanceDir, 'run', 'broker.sock');
  if (Buffer.byteLength(socketPath) > 100) {
    const runtime = process.env.XDG_RUNTIME_DIR;
    const dir =
      runtime !== undefined && isAbsolute(runtime)
        ? join(runtime, 'harness')
        : join(tmpdir(), `harness-${process.getuid?.() ?? 'user'}`);
    socketPath = join(dir, `broker-${process.pid}.sock`);
  }
  return { instanceDir, socketPath, chosenBy };
}

/** The embedded default's broker: started in this process, or one already running for the instance. */
export interface EmbeddedHost {
  location: EmbeddedLocation;
  workspaceFile: string;
  created: boolean;
  /** True when another process (a running `harness serve`) already served the instance's socket. */
  shared: boolean;
  /** Which store the instance uses, for a person (`SQLite …` or `PostgreSQL database …`; no password). */
  store: string;
  close(): Promise<void>;
}

/** Where an embedded host lives and what it serves, read from its record when it exists. */
export interface EmbeddedPlan {
  location: EmbeddedLocation;
  workspaceFile: string;
  serves: InstanceServes;
  /** False when the instance is yet to be created (by the first `serve`, `call`, `demo`). */
  exists: boolean;
}

/** The options that choose an embedded instance and what it serves. */
export interface EmbeddedOptions {
  instance?: string | undefined;
  workspace?: string | undefined;
  /** The agent to serve; recorded when the instance is created. */
  agent?: string | undefined;
  /** A scope file to serve (wins over `agent`); recorded when the instance is created. */
  scope?: string | undefined;
  /** The broker's retention rule in ms, when this process starts the broker. */
  retentionMs?: number | undefined;
  /**
   * The project the command runs in (`projectFor`): its instance is the one opened, and a new one
   * is created with its workspace and agent, unless a flag says otherwise.
   */
  project?: Project | undefined;
}

/**
 * Reads what an embedded host would open, without creating or starting anything: the instance's
 * recorded workspace and agent (or scope file) when it exists, else what it would be created with.
 * A flag naming another workspace or agent than the instance's own is refused.
 */
export async function planEmbedded(options: EmbeddedOptions): Promise<EmbeddedPlan> {
  const { readInstance } = await import('@harness/host');
  const { project } = options;
  const location = embeddedLocation(options.instance, project);
  const requested = requestedServes(options);
  if (!existsSync(join(location.instanceDir, 'instance.json'))) {
    return {
      location,
      workspaceFile: resolve(options.workspace ?? project?.workspaceFile ?? exampleWorkspace()),
      // A workspace file named with no agent: its only agent, when it declares one (else demo's).
      serves: requested ?? {
        agent:
          project?.agent ??
          (options.workspace === undefined ? undefined : soleAgent(resolve(options.workspace))) ??
          defaultScope.agent,
      },
      exists: false,
    };
  }
  let recorded: InstanceInfo;
  try {
    recorded = readInstance(location.instanceDir);
  } catch (error) {
    throw new CliError(
      'config',
      `cannot open the instance directory ${location.instanceDir}: ${(error as Error).message}; pass --instance <dir> (or set HARNESS_HOME) to another directory`,
      { cause: error },
    );
  }
  if (options.workspace !== undefined && resolve(options.workspace) !== recorded.workspaceFile) {
    throw new CliError(
      'config',
      `the instance ${location.instanceDir} serves the workspace ${recorded.workspaceFile}, not ${resolve(options.workspace)}; an instance serves the workspace file it was created with (edits to that file are picked up while it serves), so to serve another file pass a new --instance <dir> for this one`,
    );
  }
  // An instance made before it recorded what it serves takes what it is given, as before.
  if (
    recorded.serves !== undefined &&
    requested !== undefined &&
    describeServes(requested) !== describeServes(recorded.serves)
  ) {
    throw new CliError(
      'config',
      `the instance ${location.instanceDir} serves ${describeServes(recorded.serves)}, not ${describeServes(requested)}; an instance keeps what it serves from its creation, so drop the flag or pass a new --instance <dir>`,
    );
  }
  return {
    location,
    workspaceFile: recorded.workspaceFile,
    serves: recorded.serves ?? requested ?? { agent: defaultScope.agent },
    exists: true,
  };
}

/** The one-line error for a workspace or scope that an embedded instance cannot serve. */
export function embeddedFailure(error: unknown, plan: EmbeddedPlan, options: EmbeddedOptions): CliError {
  const reason = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  if (code === 'workspace_invalid') {
    // One line: the issues themselves are what `packs check` prints, file:line:column each.
    const issues = reason.split('\n').length - 1;
    return new CliError(
      'config',
      `the embedded host cannot start: the workspace ${plan.workspaceFile} does not load (${issues} error(s)); run 'harness packs check ${plan.workspaceFile}' to see each one`,
      { cause: error },
    );
  }
  if (code === 'scope_invalid') {
    const flag = options.scope !== undefined ? '--scope' : '--agent';
    const hint = requestedServes(options) === undefined ? `; pass ${flag} <id> naming one of them` : '';
    return new CliError('config', `${flag}: ${reason}${hint}`, { cause: error });
  }
  return new CliError(
    'config',
    `cannot open the instance directory ${plan.location.instanceDir}: ${reason}; pass --instance <dir> (or set HARNESS_HOME) to a directory you can write`,
    { cause: error },
  );
}

/**
 * The lines that say why an embedded host did not start, for a command that ends on it (serve): a
 * workspace that does not load gets every issue, `file:line:column: message` as `packs check` prints
 * them, where the one-line failure only counts them; any other failure its one line.
 */
export function startFailureLines(error: unknown, debug: boolean): string[] {
  const cause = error instanceof CliError ? error.cause : undefined;
  if (cause instanceof Error && (cause as { code?: unknown }).code === 'workspace_invalid') {
    const [first = '', ...issues] = cause.message.split('\n');
    return [`harness: the embedded host cannot start: ${first}`, ...issues];
  }
  return describeFailure(error, debug).lines;
}

/**
 * The instance's plan, creating the instance first when it does not exist. Another process (a
 * `harness serve` started beside this `harness call`) that created it first wins: it is opened as any
 * existing instance is, its record checked against these flags.
 */
export async function openOrCreate(
  options: EmbeddedOptions,
): Promise<{ plan: EmbeddedPlan; created: boolean }> {
  const { HostError, initInstance } = await import('@harness/host');
  const plan = await planEmbedded(options);
  if (plan.exists) return { plan, created: false };
  try {
    mkdirSync(dirname(plan.location.instanceDir), { recursive: true });
    await initInstance(plan.location.instanceDir, plan.workspaceFile, { serves: plan.serves });
    await recordCreatedKey(plan.location.instanceDir);
    return { plan, created: true };
  } catch (error) {
    if (!(error instanceof HostError && error.code === 'instance_exists'))
      throw embeddedFailure(error, plan, options);
    const opened = await planEmbedded(options);
    if (!opened.exists) throw embeddedFailure(error, plan, options);
    return { plan: opened, created: false };
  }
}

/**
 * Records the audit public key of an instance just created in the person's user config, outside
 * every sandbox (docs/audit.md, "Where the key is recorded"). Quietly best effort: serve's streams
 * belong to its client, and `harness doctor` and `loom audit verify` say when no key is recorded.
 */
export async function recordCreatedKey(instanceDir: string): Promise<void> {
  const { recordNewInstanceKey } = await import('@harness/store');
  try {
    recordNewInstanceKey(instanceDir);
  } catch {
    // See above.
  }
}

/** How often a start looks for a broker on the instance's socket or tries to claim it. */
const SOCKET_CLAIM_ATTEMPTS = 3;

/** Whether a live broker answers at `socketPath` (a `harness serve` serving the same instance). */
export async function brokerAnswers(socketPath: string): Promise<boolean> {
  const { brokerHello } = await import('@harness/protocol/client');
  return (await brokerHello(socketPath, { timeoutMs: 2000 })).ok;
}

/**
 * Opens (creating on first use) the default instance and starts its broker in this process. The
 * workspace and the agent (or scope file) are recorded when the instance is created; an existing
 * instance keeps its own. When a live broker already listens on the instance's socket (a
 * `harness serve` running beside a `harness call`), that broker is used: it serves the same
 * instance and scope.
 */
export async function startEmbeddedHost(options: EmbeddedOptions): Promise<EmbeddedHost> {
  // Loading the workspace asks whether runs can be confined, which starts a real sandbox. Started
  // here without blocking, that probe runs while the host's modules load and the instance is read;
  // the workspace load then finds its answer cached (it was a third of serve's start-up).
  const probing = import('@harness/exec').then(
    (exec) => exec.detectSandboxAsync(),
    () => undefined,
  );
  const { HostError, StoreError, describeStoreTarget, readInstance, startBroker } = await import(
    '@harness/host'
  );
  const { plan, created } = await openOrCreate(options);
  const { location, workspaceFile, serves } = plan;
  const store = describeStoreTarget(readInstance(location.instanceDir).store);
  const base = { location, workspaceFile, created, store };
  // Another process may serve the socket, or start or stop serving it, while this one starts: a
  // broker that answers is used; one that was busy but is gone by the time it is asked (a `harness
  // call` that ended) leaves the socket to claim again.
  for (let attempt = 1; ; attempt++) {
    if (existsSync(location.socketPath) && (await brokerAnswers(location.socketPath)))
      return { ...base, shared: true, close: async () => {} };
    try {
      await probing;
      const broker = await startBroker({
        instanceDir: location.instanceDir,
        socketPath: location.socketPath,
        scope: scopeOf(serves),
        ...(options.retentionMs !== undefined ? { retentionMs: options.retentionMs } : {}),
      });
      return { ...base, shared: false, close: () => broker.close() };
    } catch (error) {
      // A store that cannot be opened (unreachable, another schema version) is configuration too.
      if (!(error instanceof HostError || error instanceof StoreError)) throw error;
      if (error.code === 'queue_busy' && attempt < SOCKET_CLAIM_ATTEMPTS) continue;
      throw new CliError(
        error.code === 'queue_busy' ? 'host_unavailable' : 'config',
        `the embedded host at ${location.instanceDir} did not start: ${error.message}`,
        { cause: error },
      );
    }
  }
}
