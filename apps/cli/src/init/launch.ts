// How an MCP client starts `harness serve` for a project: the program and arguments written into its
// config, and the instance directory the project's looms, approvals and audit live in.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveExecutable } from '@harness/exec';
import { version as cliVersion } from '../../package.json';
import { AGENT } from './workspace-writer';

/** The package `npx` fetches and runs: its one bin is `harness` (npm exec runs a package's only bin). */
export const CLI_PACKAGE = '@harness/cli';

/**
 * How the server is started: `harness` found on PATH, this checkout with node, or the published
 * package with npx.
 */
export interface Launch {
  readonly form: 'path' | 'checkout' | 'npx';
  readonly command: string;
  /** The arguments up to and including the subcommand's place, e.g. `['-y', '@harness/cli@0.1.0']`. */
  readonly prefix: readonly string[];
}

/** `harness` as the PATH of the client that starts it finds it: no path of this machine in the entry. */
export const PATH_LAUNCH: Launch = { form: 'path', command: 'harness', prefix: [] };

/** Whether `harness` on PATH is this harness: its file, or why it is not used. */
export type OnPath =
  | { readonly ok: true; readonly file: string }
  | { readonly ok: false; readonly why: string };

/**
 * Whether the `harness` a client would start from `path` is there and is this release (its
 * `--version` says so): only then may an entry name it bare, so the entry holds no path of this
 * machine and starts the release this project was set up with.
 */
export function harnessOnPath(
  version: string = cliVersion,
  path: string | undefined = process.env.PATH,
): OnPath {
  // npx and npm scripts put a node_modules/.bin on the PATH of what they run (`npx -y @harness/cli
  // init` finds the harness it runs there): that PATH is theirs, not the one a client starts with.
  const own = (path ?? '')
    .split(delimiter)
    .filter((dir) => !dir.split(sep).includes('node_modules'))
    .join(delimiter);
  let file: string;
  try {
    file = resolveExecutable('harness', own);
  } catch {
    return { ok: false, why: 'harness is not on PATH' };
  }
  let said: string;
  try {
    said = execFileSync(file, ['--version'], {
      encoding: 'utf8',
      timeout: 20_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, PATH: path ?? '' },
    }).trim();
  } catch (error) {
    return {
      ok: false,
      why: `the harness on PATH (${file}) did not run: ${(error as Error).message.split('\n')[0]}`,
    };
  }
  if (said !== `harness ${version}`)
    return {
      ok: false,
      why: `the harness on PATH (${file}) is ${JSON.stringify(said)}, not harness ${version}`,
    };
  return { ok: true, file };
}

/** The built entry of the running CLI (the chunks sit beside it). */
export function runningEntry(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'harness.js');
}

/**
 * `node <entry>` when `entry` is the built bin of a checkout of this repository; otherwise
 * `npx -y @harness/cli@<version>`, which works wherever Node.js and npm are, whatever installed this
 * copy. The version is the one running: a client's start then never fetches another release
 * silently (a newer one could read the instance's store differently); `harness init` again moves it.
 */
export function launchFor(entry: string, version: string = cliVersion): Launch {
  const real = existsSync(entry) ? realpathSync(entry) : entry;
  return isCheckoutEntry(real)
    ? { form: 'checkout', command: 'node', prefix: [real] }
    : { form: 'npx', command: 'npx', prefix: ['-y', `${CLI_PACKAGE}@${version}`] };
}

/**
 * Whether `entry` (a real path) is `apps/cli/dist/harness.js` of a git work tree of this repository:
 * no `node_modules` folder on its path (an installed copy, npx's cache included, sits in one), and
 * three levels up a directory holding `.git` (a directory, or a worktree's file), the
 * `pnpm-workspace.yaml` of this workspace and `apps/cli/package.json` naming this package.
 */
function isCheckoutEntry(entry: string): boolean {
  if (entry.split(sep).includes('node_modules')) return false;
  const root = join(dirname(entry), '..', '..', '..');
  if (entry !== join(root, 'apps', 'cli', 'dist', 'harness.js')) return false;
  if (!existsSync(join(root, '.git')) || !existsSync(join(root, 'pnpm-workspace.yaml'))) return false;
  try {
    return JSON.parse(readFileSync(join(root, 'apps', 'cli', 'package.json'), 'utf8')).name === CLI_PACKAGE;
  } catch {
    return false;
  }
}

/** What stops, or may surprise, a client starting an entry's launcher; read back by `harness doctor`. */
export interface LaunchProblem {
  readonly status: 'warn' | 'fail';
  /** Follows "its harness entry ": what it runs, what is wrong, and the fix. */
  readonly detail: string;
}

/**
 * Checks the launcher of an entry `harness init` wrote, in either form: `node <entry>` needs the
 * entry to exist; `npx … @harness/cli@<version>` needs npx on `path` and, to run what this harness
 * is, this harness's version (unpinned, or another version, is a warning). `undefined`: nothing to
 * say, including for a launcher init does not write.
 */
export function launchProblem(
  command: unknown,
  args: readonly string[],
  version: string = cliVersion,
  path: string | undefined = process.env.PATH,
): LaunchProblem | undefined {
  const launcher = args[0];
  if (command === 'harness') {
    try {
      resolveExecutable('harness', path);
      return undefined;
    } catch {
      return {
        status: 'fail',
        detail: `runs harness, which is not on this PATH; put the harness bin on PATH (npm install -g ${CLI_PACKAGE}@${version}, or scripts/link-bins.sh in a checkout), or run 'harness init' again where it is not on PATH, to write this machine's path instead`,
      };
    }
  }
  if (command === 'node')
    return launcher !== undefined && isAbsolute(launcher) && !existsSync(launcher)
      ? { status: 'fail', detail: `runs ${launcher}, which is missing; run 'harness init' again` }
      : undefined;
  if (command !== 'npx') return undefined;
  const spec = args.find((a) => a === CLI_PACKAGE || a.startsWith(`${CLI_PACKAGE}@`));
  if (spec === undefined) return undefined;
  try {
    resolveExecutable('npx', path);
  } catch {
    return {
      status: 'fail',
      detail: `runs npx, which is not on this PATH; install Node.js with npm (npx comes with it), or run 'harness init' again from where npx is`,
    };
  }
  const pinned = `${CLI_PACKAGE}@${version}`;
  if (spec === CLI_PACKAGE)
    return {
      status: 'warn',
      detail: `runs ${CLI_PACKAGE} with no version, so a client's start may fetch a release other than ${version}, the one this project was set up with; run 'harness init' again to pin ${pinned}`,
    };
  if (spec !== pinned)
    return {
      status: 'warn',
      detail: `runs ${spec}, not ${pinned} (this harness); run 'harness init' again to move it to ${version}`,
    };
  return undefined;
}

/**
 * The arguments of `harness serve` with no path: started in the project (or below it), serve finds
 * the project's workspace, instance and agent itself (`findProject`, apps/cli/src/project.ts).
 */
export function servePathless(launch: Launch): string[] {
  return [...launch.prefix, 'serve'];
}

/** The arguments of `harness serve` naming the project's workspace, instance and agent. */
export function serveArgs(launch: Launch, workspaceFile: string, instanceDir: string): string[] {
  return [
    ...launch.prefix,
    'serve',
    '--workspace',
    workspaceFile,
    '--instance',
    instanceDir,
    '--agent',
    AGENT,
  ];
}
