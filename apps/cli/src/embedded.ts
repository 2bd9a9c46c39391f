// The embedded default: with no host configuration, `harness serve` and `harness demo` open (or
// create) an instance directory over the example workspace, start a broker for the default scope in
// this process, and reach it through the socket fast path, so an MCP client works at once.
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ScopeFile } from '@harness/host';
import { CliError } from './errors';

const require = createRequire(import.meta.url);

/** Where the embedded default keeps its data, and how it was chosen. */
export interface EmbeddedLocation {
  instanceDir: string;
  queuePath: string;
  chosenBy: '--instance' | 'HARNESS_HOME' | 'default';
}

/** The `loom` host CLI that ships beside this one. */
export function bundledLoomCli(): string {
  return join(dirname(require.resolve('@harness/loom/package.json')), 'dist', 'loom.js');
}

/** The example workspace shipped in the repository's `fixtures/`. */
export function exampleWorkspace(): string {
  const candidates = [
    resolve(
      dirname(require.resolve('@harness/loom/package.json')),
      '..',
      '..',
      'fixtures',
      'workspaces',
      'demo',
      'workspace.yaml',
    ),
  ];
  const found = candidates.find((c) => existsSync(c));
  if (found === undefined) {
    throw new CliError(
      'config',
      `the example workspace was not found (looked in ${candidates.join(', ')}); pass --loom-commands-config`,
    );
  }
  return found;
}

/** The default scope: the example workspace's `demo` agent, every grant it holds. */
export const defaultScope: ScopeFile = { run: 'harness-serve', agent: 'demo' };

/**
 * Picks the instance directory: `--instance`, else `$HARNESS_HOME`, else
 * `$XDG_DATA_HOME/harness/default` (`~/.local/share/harness/default`).
 */
export function embeddedLocation(flag: string | undefined): EmbeddedLocation {
  const env = process.env.HARNESS_HOME;
  const dataHome = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  const instanceDir = resolve(flag ?? (env || join(dataHome, 'harness', 'default')));
  const chosenBy = flag !== undefined ? '--instance' : env ? 'HARNESS_HOME' : 'default';
  // A Unix socket path is limited to about 104 bytes; fall back to a private temp dir when the
  // instance path is too deep for one.
  let queuePath = join(instanceDir, 'run', 'broker.sock');
  if (Buffer.byteLength(queuePath) > 100) {
    const dir = join(tmpdir(), `harness-${process.getuid?.() ?? 'user'}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    queuePath = join(dir, `broker-${process.pid}.sock`);
  }
  return { instanceDir, queuePath, chosenBy };
}

/** The embedded default's broker: started in this process, or one already running for the instance. */
export interface EmbeddedHost {
  location: EmbeddedLocation;
  workspaceFile: string;
  cliPath: string;
  created: boolean;
  /** True when another process (a running `harness serve`) already served the instance's socket. */
  shared: boolean;
  close(): Promise<void>;
}

/**
 * Opens (creating on first use) the default instance and starts its broker in this process. The
 * workspace is recorded when the instance is created; an existing instance keeps its own. When a
 * live broker already listens on the instance's socket (a `harness serve` running beside a
 * `harness call`), that broker is used: it serves the same instance and scope.
 */
export async function startEmbeddedHost(options: {
  instance?: string | undefined;
  workspace?: string | undefined;
  /** A scope file path, or a scope; default {@link defaultScope}. */
  scope?: string | ScopeFile | undefined;
}): Promise<EmbeddedHost> {
  const { HostError, initInstance, readInstance, startBroker } = await import('@harness/host');
  const location = embeddedLocation(options.instance);
  let workspaceFile = resolve(options.workspace ?? exampleWorkspace());
  let created = false;
  try {
    if (!existsSync(join(location.instanceDir, 'instance.json'))) {
      mkdirSync(dirname(location.instanceDir), { recursive: true });
      await initInstance(location.instanceDir, workspaceFile);
      created = true;
    } else {
      const recorded = readInstance(location.instanceDir).workspaceFile;
      if (options.workspace !== undefined && resolve(options.workspace) !== recorded) {
        throw new CliError(
          'config',
          `the instance ${location.instanceDir} serves the workspace ${recorded}, not ${resolve(options.workspace)}; an instance keeps the workspace it was created with, so pass a new --instance <dir> for this one`,
        );
      }
      workspaceFile = recorded;
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof HostError && error.code === 'workspace_invalid') {
      // One line: the issues themselves are what `packs check` prints, file:line:column each.
      const issues = reason.split('\n').length - 1;
      throw new CliError(
        'config',
        `the embedded host cannot start: the workspace ${workspaceFile} does not load (${issues} error(s)); run 'harness packs check ${workspaceFile}' to see each one`,
        { cause: error },
      );
    }
    throw new CliError(
      'config',
      `cannot open the instance directory ${location.instanceDir}: ${reason}; pass --instance <dir> (or set HARNESS_HOME) to a directory you can write`,
      { cause: error },
    );
  }
  const base = { location, workspaceFile, cliPath: bundledLoomCli(), created };
  if (existsSync(location.queuePath)) {
    const { brokerHello } = await import('@harness/host/client');
    const hello = await brokerHello(location.queuePath, { timeoutMs: 2000 });
    if (hello.ok) return { ...base, shared: true, close: async () => {} };
  }
  try {
    const broker = await startBroker({
      instanceDir: location.instanceDir,
      queuePath: location.queuePath,
      scope: options.scope ?? defaultScope,
    });
    return { ...base, shared: false, close: () => broker.close() };
  } catch (error) {
    if (error instanceof HostError) {
      throw new CliError(
        error.code === 'queue_busy' ? 'host_unavailable' : 'config',
        `the embedded host at ${location.instanceDir} did not start: ${error.message}`,
        { cause: error },
      );
    }
    throw error;
  }
}
