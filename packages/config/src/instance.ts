// Where an instance lives, chosen the one way both bins (`harness`, `loom`) choose it, and how a
// command line a person copies names it. Node-only (the home directory, path resolution), so it is
// its own entry (`@harness/config/instance`) and the root stays free of imports.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

/** The environment variables the choice reads. */
export type InstanceEnv = Readonly<Record<string, string | undefined>>;

/** The default instance as a person writes it: under `$XDG_DATA_HOME` when set. */
export const DEFAULT_INSTANCE_DIR = '~/.local/share/harness/default';

/**
 * What chose an instance directory: the flag, the environment, the project the command runs in
 * (the instance `harness init` made for it), or nothing (the default).
 */
export type InstanceChosenBy = '--instance' | 'HARNESS_HOME' | 'project' | 'default';

/** An instance directory (absolute) and what chose it. */
export interface InstanceLocation {
  instanceDir: string;
  chosenBy: InstanceChosenBy;
}

/** The directory of the default instance and of those `harness init` creates: `$XDG_DATA_HOME/harness`. */
export function instancesHome(env: InstanceEnv = process.env): string {
  return dirname(defaultInstanceDir(env));
}

/** Whether `instanceDir` is one of the instances directly under {@link instancesHome}. */
export function isDataDirInstance(instanceDir: string, env: InstanceEnv = process.env): boolean {
  return dirname(resolve(instanceDir)) === instancesHome(env);
}

/** The default instance directory in `env`: `$XDG_DATA_HOME/harness/default`, else `~/.local/share/harness/default`. */
export function defaultInstanceDir(env: InstanceEnv = process.env): string {
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return resolve(dataHome, 'harness', 'default');
}

/**
 * The instance of the project at `projectDir` (a real path), the one `harness init` sets up and
 * every command run inside the project finds: `$XDG_DATA_HOME/harness/<dir name>-<hash of its
 * path>` (default `~/.local/share/harness/…`). Outside the project on purpose: the project's writes
 * (a make recipe, a test) must not reach the store that holds its approvals and audit. One per
 * project, so two repositories never share, or fight over, one instance's workspace.
 */
export function projectInstance(projectDir: string, env: InstanceEnv = process.env): string {
  const slug = basename(projectDir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '');
  const hash = createHash('sha256').update(projectDir).digest('hex').slice(0, 8);
  return join(instancesHome(env), `${slug || 'project'}-${hash}`);
}

/**
 * Picks the instance directory: `--instance` (`flag`), else `$HARNESS_HOME`, else the instance of
 * the project the command runs in (`project`, when it runs in one), else
 * {@link defaultInstanceDir}. A relative path is resolved against the working directory. An empty
 * `HARNESS_HOME` counts as unset.
 */
export function instanceLocation(options: {
  flag?: string | undefined;
  env?: InstanceEnv;
  project?: string | undefined;
}): InstanceLocation {
  const env = options.env ?? process.env;
  if (options.flag !== undefined) return { instanceDir: resolve(options.flag), chosenBy: '--instance' };
  if (env.HARNESS_HOME) return { instanceDir: resolve(env.HARNESS_HOME), chosenBy: 'HARNESS_HOME' };
  if (options.project !== undefined) return { instanceDir: resolve(options.project), chosenBy: 'project' };
  return { instanceDir: defaultInstanceDir(env), chosenBy: 'default' };
}

/**
 * The flag a command line needs to reach `instanceDir` when it is typed in `env`: none when the
 * instance is the default one and `HARNESS_HOME` is unset there, else `--instance <dir>`. An instance
 * chosen by `HARNESS_HOME` is named too: a person's shell seldom has the variable an MCP client set.
 */
export function instanceArgs(instanceDir: string | undefined, env: InstanceEnv = process.env): string[] {
  if (instanceDir === undefined) return [];
  const dir = resolve(instanceDir);
  return !env.HARNESS_HOME && dir === defaultInstanceDir(env) ? [] : ['--instance', dir];
}

// What a POSIX shell reads as one word without quotes.
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One word as a POSIX shell reads it back unchanged: as it is when plain, else in single quotes. */
export function shellWord(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Words as one command line a POSIX shell splits back into exactly these words. */
export function commandLine(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}

/**
 * The `harness` command that approves approval `id` on the instance at `instanceDir`, as words
 * (`['harness', 'approvals', 'approve', id, …]`) and as the line a person pastes into a shell of
 * `env` (every word {@link shellWord}-quoted). The one definition of the hint a model and a person
 * read when a call waits for approval; `instanceDir` undefined (a backend with no instance) names none.
 * An instance directly under {@link instancesHome} (the default one, and those `harness init`
 * creates) is not named: the command finds it by the approval id, unless `HARNESS_HOME` is set.
 */
export function approveCommand(
  id: string,
  instanceDir: string | undefined,
  env: InstanceEnv = process.env,
): { argv: string[]; line: string } {
  // `harness approvals approve <id>` finds an instance of the data directory by the id alone.
  const found = instanceDir !== undefined && !env.HARNESS_HOME && isDataDirInstance(instanceDir, env);
  const argv = ['harness', 'approvals', 'approve', id, ...(found ? [] : instanceArgs(instanceDir, env))];
  return { argv, line: commandLine(argv) };
}

/**
 * `<bin> approvals list`, naming the instance as the command line that failed did: `--instance`
 * (made absolute) when it was given, else nothing, so the same choice picks the same instance.
 */
export function listApprovalsCommand(bin: 'harness' | 'loom', instanceFlag: string | undefined): string {
  return commandLine([
    bin,
    'approvals',
    'list',
    ...(instanceFlag === undefined ? [] : ['--instance', resolve(instanceFlag)]),
  ]);
}
