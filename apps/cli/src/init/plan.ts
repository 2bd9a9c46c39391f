// The plan of `harness init`: every file it would write, with its text before and after, worked out
// before anything is written. A file that cannot take its change (a client config that does not
// parse, a directory that cannot be written) is a problem of the plan, and then nothing is written.
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { projectInstance } from '@harness/config/instance';
import { CliError } from '../errors';
import { choosePacks, type WorkspaceChoice } from './choose';
import { CLIENTS, type ClientContext, type ClientId, type ClientSpec, SERVER_NAME } from './clients';
import { type Detected, detectProject } from './detect';
import { type ImportPlan, type ImportSource, importSources, planImport, removeEntries } from './import';
import {
  harnessOnPath,
  type Launch,
  launchFor,
  type OnPath,
  PATH_LAUNCH,
  runningEntry,
  serveArgs,
  servePathless,
} from './launch';
import { mergeJsonEntry } from './merge-json';
import { mergeTomlEntry } from './merge-toml';
import { standardCatalog } from './standard';
import { outsideProject, realTarget } from './where';
import { AGENT, renderWorkspace } from './workspace-writer';
import { readRecord, recordDir, sha256, type WorkspaceRecord } from './written-record';

/** The instance's credentials file, as the host reads it. */
export const CREDENTIALS_FILE = 'credentials.json';

/** What `harness init` was asked to do. */
export interface InitOptions {
  readonly dir: string;
  /** The clients named by `--client`; `undefined`: those whose config already exists. */
  readonly clients: readonly ClientId[] | undefined;
  /**
   * What to do with an existing workspace init did not write (or that changed since): `ask` (show
   * it, and ask on a terminal), `force` (replace it; `--force` replaces any existing one), `keep`
   * (keep it, reviewed: `--keep`).
   */
  readonly existing: 'ask' | 'force' | 'keep';
  readonly instance: string | undefined;
  /** `--import`: the MCP servers of the clients' configs move into the workspace. */
  readonly import?: boolean;
}

/**
 * What happens to one file. `review`: an existing workspace init did not write, waiting for the
 * person to keep it or have it replaced; never written as it stands.
 */
export type Action = 'create' | 'update' | 'unchanged' | 'kept' | 'review';

/** One file of the plan. */
export interface FileChange {
  readonly path: string;
  readonly before: string | undefined;
  readonly after: string;
  readonly action: Action;
  /** What it holds or why it stays, for a person. */
  readonly detail: string;
  /** With `review`: the text init would write in its place. */
  readonly replacement?: string;
  /** The project's real path, for a file that must stay inside it (checked again as it is written). */
  readonly within?: string;
  /** The mode it is written with, whatever it had (credentials.json: 0600); its new directories are 0700. */
  readonly mode?: number;
}

/** Everything `harness init` would do, and what stands in its way. */
export interface InitPlan {
  readonly projectDir: string;
  readonly home: string;
  readonly workspaceFile: string;
  /** The real path the workspace file leads to, which its record is kept under. */
  readonly workspaceTarget: string;
  /** Where the records of what init wrote (or a person accepted) are kept, outside every project. */
  readonly recordDir: string;
  /** The record of the workspace before this run, if any. */
  readonly record: WorkspaceRecord | undefined;
  readonly instanceDir: string;
  /** Whether `instanceDir` is the project's own, the one every command run in the project finds. */
  readonly ownInstance: boolean;
  readonly launch: Launch;
  /** Whether `harness` on PATH is this harness, which the entries then name bare. */
  readonly onPath: OnPath;
  readonly detected: Detected;
  readonly choice: WorkspaceChoice;
  readonly clients: readonly ClientSpec[];
  readonly changes: readonly FileChange[];
  /** Files that cannot take their change, each naming the file and the fix. */
  readonly problems: readonly string[];
  readonly notes: readonly string[];
  /** With `--import`: what it takes from the clients' configs. */
  readonly imported?: ImportPlan;
  /** Values no output may show: every diff masks them. */
  readonly secrets: readonly string[];
}

/** Works out the whole plan; reads files, writes none. */
export async function planInit(options: InitOptions): Promise<InitPlan> {
  const projectDir = resolve(options.dir);
  if (!existsSync(projectDir) || !statSync(projectDir).isDirectory())
    throw new CliError('usage', `${projectDir} is not a directory; give the repository's top directory`);
  const projectReal = realpathSync(projectDir);
  const home = process.env.HOME || homedir();
  const workspaceFile = join(projectDir, '.harness', 'workspace.yaml');
  const workspaceTarget = realTarget(workspaceFile) ?? workspaceFile;
  const records = recordDir(home, process.env);
  const record = readRecord(records, workspaceTarget);
  // The instance every command run in the project finds (project.ts): the project's real path names it.
  const ownInstance = projectInstance(projectReal, process.env);
  const instanceDir = resolve(options.instance ?? ownInstance);
  const detected = detectProject(projectDir);
  const catalog = await standardCatalog();
  const choice = choosePacks(detected, catalog);
  const notes = [...choice.notes];
  const problems: string[] = [];
  const ctx: ClientContext = { projectDir, home, platform: process.platform, env: process.env };
  const credentialsFile = join(instanceDir, CREDENTIALS_FILE);
  let imported: ImportPlan | undefined;
  let held: HeldCredentials = { values: {}, text: undefined };
  if (options.import === true) {
    const read = readHeldCredentials(credentialsFile);
    if (typeof read === 'string') problems.push(read);
    else held = read;
    imported = planImport(importSources(ctx), new Set(catalog.keys()), held.values);
    notes.push(...imported.notes);
    problems.push(...imported.problems);
  }
  const text = renderWorkspace(choice, catalog, projectDir, imported?.servers ?? []);
  notes.push(...(await checkWritten(text, workspaceFile)));
  const changes: FileChange[] = [];
  // A workspace reached through a symlink out of the project is neither read nor written.
  const away = outsideProject(workspaceFile, projectDir);
  if (away !== undefined) problems.push(away);
  else {
    const planned = planWorkspace(workspaceFile, text, options.existing, record, choice);
    changes.push({ ...planned, within: projectReal });
    if (planned.action === 'kept' || planned.action === 'review')
      notes.push(...(await checkKept(workspaceFile)));
    if ((planned.action === 'kept' || planned.action === 'review') && (imported?.servers.length ?? 0) > 0)
      problems.push(
        `${workspaceFile}: --import adds the servers to the workspace harness init writes, and this one is kept as it stands; add them to it by hand (docs/servers.md), or run with --force to write it again`,
      );
  }
  const ids = options.clients ?? CLIENTS.filter((c) => existsSync(c.file(ctx))).map((c) => c.id);
  // A client whose servers move into the workspace reaches them through its harness entry.
  const reaching = imported?.servers.flatMap((s) => s.from.map((f) => f.source.client)) ?? [];
  const clients = CLIENTS.filter((c) => ids.includes(c.id) || reaching.includes(c.id));
  const onPath = harnessOnPath();
  const launch = onPath.ok ? PATH_LAUNCH : launchFor(runningEntry());
  // A client that starts its server in the project needs no path: serve finds the project from
  // where it starts. Any other client, or an instance of the person's choosing, is named.
  const ownChoice = instanceDir === ownInstance;
  const argsOf = (client: ClientSpec) =>
    client.startsInProject && ownChoice
      ? servePathless(launch)
      : serveArgs(launch, workspaceFile, instanceDir);
  notes.push(...launchNotes(launch, onPath, clients, ownChoice));
  for (const client of clients) {
    const file = client.file(ctx);
    // A project's config must be the project's own: a symlink to ~/.claude.json is not.
    const away = client.scope === 'project' ? outsideProject(file, projectDir) : undefined;
    const entry = client.entry(launch.command, argsOf(client), ctx);
    const planned = away ?? planClient(client, file, entry, workspaceFile, imported?.removals.get(file));
    if (typeof planned === 'string') problems.push(planned);
    else changes.push(client.scope === 'project' ? { ...planned, within: projectReal } : planned);
  }
  if (imported !== undefined) {
    problems.push(...removeImported(imported, changes, projectDir, projectReal));
    const credentials = credentialsChange(credentialsFile, held, imported);
    if (credentials !== undefined) changes.push(credentials);
  }
  problems.push(...changes.flatMap((c) => writeProblem(c)));
  return {
    projectDir,
    home,
    workspaceFile,
    workspaceTarget,
    recordDir: records,
    record,
    instanceDir,
    ownInstance: ownChoice,
    launch,
    onPath,
    detected,
    choice,
    clients,
    changes,
    problems,
    notes,
    ...(imported === undefined ? {} : { imported }),
    secrets: imported?.secrets ?? [],
  };
}

/** The instance's credentials.json as it is: its values and its text. */
interface HeldCredentials {
  readonly values: Readonly<Record<string, string>>;
  readonly text: string | undefined;
}

function readHeldCredentials(file: string): HeldCredentials | string {
  if (!existsSync(file)) return { values: {}, text: undefined };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return `${file}: cannot be read (${(error as Error).message}); make it readable, or run without --import`;
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch {
    return `${file}: not valid JSON; fix it (it holds { "<name>": "<value>" }), or run without --import`;
  }
  if (values === null || typeof values !== 'object' || Array.isArray(values))
    return `${file}: holds no JSON object; fix it (it holds { "<name>": "<value>" }), or run without --import`;
  return { values: values as Record<string, string>, text };
}

/**
 * Takes the imported servers out of the configs they came from: edits the change a client already
 * has (its harness entry), or adds one. Everything else in the file stays as it is.
 */
function removeImported(
  imported: ImportPlan,
  changes: FileChange[],
  projectDir: string,
  projectReal: string,
): string[] {
  const problems: string[] = [];
  for (const [file, { source, names }] of imported.removals) {
    // A client's own file had them removed as its harness entry was merged in.
    if (changes.some((c) => c.path === file)) continue;
    let base: string;
    try {
      base = readFileSync(file, 'utf8');
    } catch (error) {
      problems.push(
        `${file}: cannot be read (${(error as Error).message}); make it readable, or run without --import`,
      );
      continue;
    }
    const inProject = file.startsWith(projectDir + sep);
    const away = inProject ? outsideProject(file, projectDir) : undefined;
    if (away !== undefined) {
      problems.push(away);
      continue;
    }
    const removed = removeEntries(base, source, names);
    if (!removed.ok) {
      problems.push(`${file}: ${removed.problem}; remove them by hand, or run without --import`);
      continue;
    }
    changes.push({
      path: file,
      before: base,
      after: removed.text,
      action: removed.text === base ? 'unchanged' : 'update',
      detail: `${source.name}: ${names.join(', ')} moved into the workspace (reached through harness now)`,
      ...(inProject ? { within: projectReal } : {}),
    });
  }
  return problems;
}

/** credentials.json with the imported values beside those it held (mode 0600), when it changes. */
function credentialsChange(
  file: string,
  held: HeldCredentials,
  imported: ImportPlan,
): FileChange | undefined {
  const added = [...imported.credentials].filter(([name]) => held.values[name] === undefined);
  if (added.length === 0) return undefined;
  const after = `${JSON.stringify({ ...held.values, ...Object.fromEntries(added) }, null, 2)}\n`;
  return {
    path: file,
    before: held.text,
    after,
    action: held.text === undefined ? 'create' : 'update',
    detail: `credentials ${added.map(([n]) => n).join(', ')} (values not shown), readable by you alone`,
    mode: 0o600,
  };
}

/**
 * The workspace file's change. An existing file is kept only when the record outside the project
 * says init wrote it (or the person accepted it) as it is now; any other is shown to the person
 * (`review`), replaced (`force`) or kept as reviewed (`keep`).
 */
function planWorkspace(
  file: string,
  text: string,
  existing: InitOptions['existing'],
  record: WorkspaceRecord | undefined,
  choice: WorkspaceChoice,
): FileChange {
  // Something else at that path (a directory) is named by the write check, not read here.
  const before = existsSync(file) && statSync(file).isFile() ? readFileSync(file, 'utf8') : undefined;
  const holds = `packs ${choice.packs.map((p) => p.id).join(', ')}; agent ${AGENT}`;
  if (before === undefined) return { path: file, before, after: text, action: 'create', detail: holds };
  if (before === text) return { path: file, before, after: text, action: 'unchanged', detail: holds };
  const recorded = record !== undefined && record.sha256 === sha256(before);
  if (existing === 'force')
    return {
      path: file,
      before,
      after: text,
      action: 'update',
      detail: recorded ? holds : `${holds}; it replaces a file harness init had not written`,
    };
  if (recorded)
    return {
      path: file,
      before,
      after: before,
      action: 'kept',
      detail: `${record.by === 'written' ? 'harness init wrote it' : 'you kept it after review'} and it has not changed since; --force writes it again (--dry-run --force shows how)`,
    };
  if (existing === 'keep')
    return {
      path: file,
      before,
      after: before,
      action: 'kept',
      detail: 'kept as you reviewed it (--keep): harness init asks again only if it changes',
    };
  return {
    path: file,
    before,
    after: before,
    action: 'review',
    replacement: text,
    detail: 'harness init did not write it (or it changed since): review it, then run with --keep or --force',
  };
}

/**
 * What the report says of the entries' launcher: that a project's entry holds this machine's path
 * when `harness` is not on PATH (and how to change that), and why an entry names paths.
 */
function launchNotes(
  launch: Launch,
  onPath: OnPath,
  clients: readonly ClientSpec[],
  ownChoice: boolean,
): string[] {
  const notes: string[] = [];
  if (!onPath.ok && clients.length > 0) {
    const [how, fix] =
      launch.form === 'checkout'
        ? [
            `the entries run node on ${launch.prefix[0]}, this machine's path${clients.some((c) => c.scope === 'project') ? ', so a project config that holds one (.mcp.json) works on this machine only' : ''}`,
            `link the bin (sh ${join(dirname(launch.prefix[0] ?? ''), '..', '..', '..', 'scripts', 'link-bins.sh')} links harness into ~/.local/bin)`,
          ]
        : [
            `the entries start ${launch.prefix.at(-1)} through npx (no path of this machine, but a download on a fresh one)`,
            `put it on PATH (npm install -g ${launch.prefix.at(-1)})`,
          ];
    notes.push(
      `${onPath.why}: ${how}; ${fix} and run harness init again for entries that run plain \`harness serve\``,
    );
  }
  if (!ownChoice && clients.some((c) => c.startsInProject))
    notes.push(
      "--instance names an instance other than the project's own, so every entry names the workspace, the instance and the agent (paths of this machine)",
    );
  return notes;
}

/** The file as a client would take it, or a problem naming it and the fix. */
function planClient(
  client: ClientSpec,
  file: string,
  entry: Record<string, unknown>,
  workspaceFile: string,
  removal?: { source: ImportSource; names: string[] },
): FileChange | string {
  let before: string | undefined;
  try {
    before = readIfThere(file);
  } catch (error) {
    return `${file}: cannot be read (${(error as Error).message}); make it readable, or name other clients with --client`;
  }
  // The servers --import moves into the workspace leave first; then the harness entry goes in.
  let base = before;
  if (removal !== undefined && before !== undefined) {
    const removed = removeEntries(before, removal.source, removal.names);
    if (!removed.ok) return `${file}: ${removed.problem}; remove them by hand, or run without --import`;
    base = removed.text;
  }
  const merge = client.format === 'toml' ? mergeTomlEntry : mergeJsonEntry;
  const merged = merge(base, client.key, SERVER_NAME, entry);
  if (!merged.ok)
    return `${file}${merged.where ? `:${merged.where}` : ''}: ${merged.problem}; fix the file (or move it aside) and run harness init again, or name other clients with --client`;
  const was = servedBefore(merged.previous);
  const other = was !== undefined && was !== workspaceFile;
  const replaced =
    merged.replaced.length > 0
      ? `; removed key(s) harness init does not write: ${merged.replaced.join(', ')}`
      : '';
  const args = Array.isArray(entry.args) ? (entry.args as unknown[]) : [];
  const finds = args.includes('--workspace') ? '' : '; it names no project: serve finds the one it starts in';
  const moved =
    removal === undefined
      ? ''
      : `; ${removal.names.join(', ')} moved into the workspace (reached through harness now)`;
  const detail = `${client.name}: ${client.key}.${SERVER_NAME}${other ? ` (it served ${was} before)` : ''}${replaced}${finds}${moved}`;
  const action: Action = before === undefined ? 'create' : merged.text === before ? 'unchanged' : 'update';
  return { path: file, before, after: merged.text, action, detail };
}

/** The workspace an existing entry served, when it names one. */
function servedBefore(previous: unknown): string | undefined {
  const args = (previous as { args?: unknown } | undefined)?.args;
  if (!Array.isArray(args)) return undefined;
  const at = args.indexOf('--workspace');
  return at >= 0 && typeof args[at + 1] === 'string' ? (args[at + 1] as string) : undefined;
}

/** The text written must load: a bug of init otherwise. Returns what this machine leaves out. */
async function checkWritten(text: string, file: string): Promise<string[]> {
  const { formatIssue } = await import('@harness/packs');
  const { loadWorkspace } = await import('@harness/workspace');
  const loaded = await loadWorkspace({ text, file }, { probe: true });
  if (!loaded.ok)
    throw new Error(`the workspace init wrote does not load: ${loaded.issues.map(formatIssue).join('; ')}`);
  return loaded.workspace.unavailable.map((u) => `pack ${u.id} is left out on this machine: ${u.reason}`);
}

/** A kept workspace must still serve the agent the client entries name. */
async function checkKept(file: string): Promise<string[]> {
  const { loadWorkspace } = await import('@harness/workspace');
  const loaded = await loadWorkspace({ file }, { probe: false });
  if (!loaded.ok) return [`${file} does not load: run 'harness packs check ${file}' to see why`];
  if (!loaded.workspace.agents.some((a) => a.id === AGENT))
    return [
      `${file} has no agent "${AGENT}", which the client entries serve: add one, or run harness init --force`,
    ];
  return [];
}

function readIfThere(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Why `change` could not be written, when it could not. */
function writeProblem(change: FileChange): string[] {
  if (change.action !== 'create' && change.action !== 'update') return [];
  // A config that is a symlink (dotfiles kept elsewhere) is written where it points.
  const target = existsSync(change.path) ? realpathSync(change.path) : change.path;
  if (existsSync(target)) {
    if (statSync(target).isDirectory()) return [`${change.path} is a directory; move it aside`];
    if (!writable(target)) return [`${change.path} is not writable; make it writable (chmod u+w)`];
  }
  let dir = dirname(target);
  while (!existsSync(dir)) dir = dirname(dir);
  // Replacing the file writes a new one beside it, so its directory must be writable too.
  if (!statSync(dir).isDirectory()) return [`${dir} is not a directory, so ${change.path} cannot be written`];
  if (!writable(dir))
    return [`${dir} is not writable, so ${change.path} cannot be written; make it writable`];
  return [];
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** `path` for a person: relative inside the project, `~/…` in the home directory. */
export function displayPath(path: string, plan: Pick<InitPlan, 'projectDir' | 'home'>): string {
  if (path.startsWith(plan.projectDir + sep)) return relative(plan.projectDir, path);
  if (path.startsWith(plan.home + sep)) return `~/${relative(plan.home, path)}`;
  return path;
}
