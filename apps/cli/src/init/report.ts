// What `harness init` tells a person: what it found, each file and what became of it (or, with
// --dry-run, the diff of each), what this machine leaves out, and the three next steps.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { bundledLoomCli } from '../embedded';
import { out } from '../output';
import { CLIENT_IDS } from './clients';
import { describeDetected } from './detect';
import { type Action, displayPath, type FileChange, type InitPlan } from './plan';
import { describeWorkspace } from './review';
import { AGENT } from './workspace-writer';
import { type RecordedBy, sha256, writeRecord } from './written-record';

const VERB: Record<Action, string> = {
  create: 'created',
  update: 'updated',
  unchanged: 'unchanged',
  kept: 'kept',
  review: 'not kept',
};

const WOULD: Record<Action, string> = {
  create: 'would create',
  update: 'would update',
  unchanged: 'unchanged',
  kept: 'kept',
  review: 'would ask',
};

/** Whether a change writes its file. */
export const writes = (c: FileChange): boolean => c.action === 'create' || c.action === 'update';

/** The head of the report: the project and what was found in it. */
export function printFound(plan: InitPlan): void {
  out(`harness init: ${plan.projectDir}`);
  out(`found: ${describeDetected(plan.detected)}`);
  for (const gone of plan.choice.leftOut) out(`left out: ${gone.id}: ${gone.why}`);
  if (plan.clients.length === 0)
    out(`clients: none has a config here yet; name one with --client ${CLIENT_IDS.join('|')}`);
}

/** One line per file: what happened to it (or would, with `dryRun`), then the notes. */
export function printChanges(plan: InitPlan, dryRun: boolean): void {
  for (const c of plan.changes) {
    const verb = (dryRun ? WOULD : VERB)[c.action];
    out(`  ${verb.padEnd(12)} ${displayPath(c.path, plan)}: ${c.detail}`);
  }
  for (const note of plan.notes) out(`note: ${note}`);
}

/** With --import: each server taken into the workspace, where from, and what is left to do. */
export function printImported(plan: InitPlan, dryRun = false): void {
  const imported = plan.imported;
  if (imported === undefined) return;
  if (imported.servers.length === 0) {
    out("import: no MCP server to import in the clients' configs");
    return;
  }
  for (const s of imported.servers) {
    const from = s.from.map((f) => `${f.name} of ${displayPath(f.source.file, plan)}`).join(', ');
    const creds = s.credentials.length === 0 ? '' : `; credentials ${s.credentials.join(', ')}`;
    out(`import: server ${s.id} (${s.transport.kind}) from ${from}, granted to ${AGENT}${creds}`);
  }
  out(
    dryRun
      ? `import: a run then starts each server once, lists its tools, writes { effects: read } for those you confirm only read (--yes: those whose readOnlyHint is true) and accepts the listed definitions; under --dry-run no server is started`
      : `import: no tool of them reaches ${AGENT} until its definition is accepted: this run accepts what each server lists now; one that does not start waits for harness servers review <id>, then harness servers accept <id> --all (docs/servers.md, "Pinned definitions")`,
  );
}

/** A workspace init did not write, shown before anything is decided: its path and what it grants. */
export async function printReview(plan: InitPlan, change: FileChange): Promise<void> {
  const how =
    plan.record === undefined
      ? 'harness init has no record of writing it (a repository can ship one, with any comment in it)'
      : `it changed since ${plan.record.by === 'written' ? 'harness init wrote it' : 'you kept it'}`;
  out(`review: ${displayPath(change.path, plan)}: ${how}. What it grants, as harness serve would load it:`);
  for (const line of await describeWorkspace(change.path, change.before ?? '')) out(line);
  out(`  the whole file: ${change.path}`);
}

/**
 * Records the workspace as it stands after the run (written by init, or kept by the person) outside
 * the project, so the next run keeps it without asking; only when the record would change.
 */
export function recordWorkspace(plan: InitPlan): void {
  const change = plan.changes.find((c) => c.path === plan.workspaceFile);
  if (change === undefined || change.action === 'review') return;
  const kept = change.action === 'kept';
  const hash = sha256(change.after);
  if (plan.record?.sha256 === hash) return;
  const by: RecordedBy = kept ? 'accepted' : 'written';
  try {
    writeRecord(plan.recordDir, plan.workspaceTarget, change.after, by);
  } catch (error) {
    out(
      `note: ${plan.recordDir} cannot be written (${(error as Error).message}), so the next harness init asks about ${displayPath(change.path, plan)} again`,
    );
  }
}

/** The unified diff of every file the plan would write, paths as a person reads them. */
export function printDiffs(plan: InitPlan): void {
  for (const c of plan.changes.filter(writes)) {
    // Inside the project the paths read as git's (a/…, b/…); elsewhere as the absolute path.
    const inside = c.path.startsWith(plan.projectDir + sep);
    const [from, to] = inside
      ? [`a/${displayPath(c.path, plan)}`, `b/${displayPath(c.path, plan)}`]
      : [c.path, c.path];
    const diff = createTwoFilesPatch(
      c.before === undefined ? '/dev/null' : from,
      to,
      c.before ?? '',
      c.after,
    );
    out(masked(diff, plan.secrets).trimEnd());
  }
}

/**
 * `text` with every secret replaced by `********`, as written, JSON- and TOML-escaped: a diff of a
 * client config or of credentials.json shows where a value is, never the value.
 */
export function masked(text: string, secrets: readonly string[]): string {
  const forms = secrets
    .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)])
    .filter((s) => s !== '')
    .sort((a, b) => b.length - a.length);
  let result = text;
  for (const form of new Set(forms)) result = result.split(form).join('********');
  return result;
}

/** The three things left to do: restart the clients, open the console, find the audit. */
export function printNextSteps(plan: InitPlan): void {
  const self = [plan.launch.command, ...plan.launch.prefix].map(shellWord).join(' ');
  const loom =
    plan.launch.form === 'checkout'
      ? `node ${shellWord(bundledLoomCli())}`
      : `npx -y -p @harness/loom@${loomVersion()} loom`;
  const names = plan.clients.map((c) => c.name);
  const restart =
    names.length === 0
      ? `Register a client: run this again with --client <name> (${CLIENT_IDS.join(', ')}).`
      : `Restart ${joinNames(names)} (or reload ${names.length === 1 ? 'its' : 'their'} MCP servers), and approve the "harness" server if it asks: it then starts harness serve on ${displayPath(plan.workspaceFile, plan)}, agent ${AGENT}.`;
  out('');
  out('Next steps:');
  out(`  1. ${restart}`);
  // In the project, every harness command finds the project's own instance itself.
  const console_ = plan.ownInstance
    ? `${self} console, in the project (or any directory below it)`
    : `${self} console --instance ${shellWord(plan.instanceDir)}`;
  // An import that accepted definitions created the instance already.
  const when = existsSync(join(plan.instanceDir, 'instance.json'))
    ? ''
    : ' (once the client has started the server, which creates the instance)';
  out(`  2. Open the console to approve the writes the agent asks for${when}: ${console_}`);
  out(
    `  3. Every call is audited in ${shellWord(plan.instanceDir)} (loom.db): read it in the console's Audit view, or with ${loom} audit tail --follow --instance ${shellWord(plan.instanceDir)}`,
  );
}

/**
 * The version of the `@harness/loom` installed beside this harness: the release that reads this
 * harness's instances, pinned for the same reason as the entry's `@harness/cli` version.
 */
function loomVersion(): string {
  const manifest = join(dirname(dirname(bundledLoomCli())), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

function joinNames(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** A word a POSIX shell reads back as itself. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
