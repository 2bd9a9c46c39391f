// The project a command runs in, found from where it stands: from the working directory upward (as
// git finds `.git`), the first directory holding `.harness/workspace.yaml`, the file `harness init`
// writes. A command that opens an instance takes the project's own (the one init made for it), with
// its workspace and agent, when no flag (nor HARNESS_HOME) names another; outside any project
// nothing changes. So `harness serve` in a client's config needs no path: its working directory
// says which project it serves.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type InstanceEnv, projectInstance } from '@harness/config/instance';
import { parseYamlConfig } from '@harness/config/yaml';
import { AGENT } from './init/workspace-writer';

/** Where a project's workspace file sits, relative to the project directory. */
export const PROJECT_WORKSPACE = join('.harness', 'workspace.yaml');

/** A project `harness init` set up, as every command finds it. */
export interface Project {
  /** The project directory (a real path): the one holding `.harness/workspace.yaml`. */
  readonly dir: string;
  readonly workspaceFile: string;
  /** The project's own instance, {@link projectInstance} of `dir`. */
  readonly instanceDir: string;
  /** The workspace's one agent; with none or several, the agent init writes (`coder`). */
  readonly agent: string;
}

/**
 * The project `from` (default: the working directory) lies in: the nearest directory, `from` or
 * above it, holding `.harness/workspace.yaml`. `undefined` outside any project.
 */
export function findProject(
  from: string = process.cwd(),
  env: InstanceEnv = process.env,
): Project | undefined {
  let dir = realOrResolved(from);
  for (;;) {
    const workspaceFile = join(dir, PROJECT_WORKSPACE);
    if (isFile(workspaceFile))
      return { dir, workspaceFile, instanceDir: projectInstance(dir, env), agent: agentOf(workspaceFile) };
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The project a command uses: the one it runs in, unless `--instance`, `--workspace` or
 * `HARNESS_HOME` says where to go instead (a flag always wins, and then the project gives nothing).
 */
export function projectFor(
  flags: { instance?: string | undefined; workspace?: string | undefined },
  env: InstanceEnv = process.env,
): Project | undefined {
  if (flags.instance !== undefined || flags.workspace !== undefined || env.HARNESS_HOME) return undefined;
  return findProject(process.cwd(), env);
}

/**
 * The one stderr line saying which project a command serves, e.g. `harness: project /src/app
 * (workspace .harness/workspace.yaml, instance ~/.local/share/harness/app-1234abcd)`.
 */
export function projectLine(project: Project, env: InstanceEnv = process.env): string {
  return `harness: project ${project.dir} (workspace ${PROJECT_WORKSPACE}, instance ${tildePath(project.instanceDir, env)})`;
}

/** `path` as a person reads it: `~/…` under the home directory. */
function tildePath(path: string, env: InstanceEnv): string {
  const home = env.HOME || homedir();
  return path.startsWith(home + sep) ? `~/${relative(home, path)}` : path;
}

/** The workspace's agent: its only one, else the agent init writes (a file that does not parse too). */
function agentOf(workspaceFile: string): string {
  return soleAgent(workspaceFile) ?? AGENT;
}

/**
 * The one agent a workspace file declares; `undefined` when it declares none or several, or cannot
 * be read (the load then says why).
 */
export function soleAgent(workspaceFile: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(workspaceFile, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = parseYamlConfig(text);
  if (!parsed.ok) return undefined;
  const agents = (parsed.data as { agents?: unknown } | null)?.agents;
  if (!Array.isArray(agents)) return undefined;
  const ids = agents
    .map((a) => (a as { id?: unknown } | null)?.id)
    .filter((id): id is string => typeof id === 'string');
  return ids.length === 1 ? ids[0] : undefined;
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}
