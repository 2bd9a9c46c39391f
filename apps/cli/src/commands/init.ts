// `harness init [dir]`: set a repository up for an agent. Reads what the project uses, writes
// .harness/workspace.yaml from the standard packs that fit it, and registers `harness serve` in the
// person's MCP clients, merging into their configs. Plans every write first; writes all or none.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { parse } from '../args';
import { CliError } from '../errors';
import { applyChanges } from '../init/apply';
import { CLIENT_IDS, type ClientId } from '../init/clients';
import { type Confirm, importProblem, notListedLine, settleTools } from '../init/import-tools';
import { type FileChange, type InitPlan, planInit } from '../init/plan';
import {
  printChanges,
  printDiffs,
  printFound,
  printImported,
  printNextSteps,
  printReview,
  recordWorkspace,
  writes,
} from '../init/report';
import { askKeepOrReplace } from '../init/review';
import { standardCatalog } from '../init/standard';
import { Backup, undoDir, undoImport } from '../init/undo';
import { AGENT, renderWorkspace } from '../init/workspace-writer';
import { recordDir, recordFile } from '../init/written-record';
import { err, out } from '../output';

const help = `Usage: harness init [dir] [--client <name>]... [--dry-run] [--force | --keep] [--instance <dir>] [--import [--yes]]
       harness init [dir] --undo

Sets up a repository (default: the current directory) for a coding agent:

  1. reads what it uses: a git repository, package.json (its scripts, and the package manager its
     lockfile names), Python (pyproject.toml, pytest.ini, requirements*.txt), Cargo.toml, a
     Makefile (its targets);
  2. writes .harness/workspace.yaml: the standard packs that fit, with the scripts and targets it
     found as the fixed sets they take, and one agent "coder" holding their reads and their writes
     (each write waits for your approval); the strict commands are listed, commented out. Every
     line says why it is there. An existing file init wrote is kept (--force writes it again);
     one it did not write (a repository's own, or one edited since) is shown with what it grants,
     and kept only when you say so: asked on a terminal, else --keep or --force;
  3. registers "harness" in each client's config, merged into what is there (other servers,
     comments and formatting kept): plain harness serve for a client that starts its servers in
     the project (claude-code, codex, gemini), which finds the project from there; else harness
     serve --workspace <that file> --instance <dir> --agent coder. The program is harness when
     the harness on PATH is this release, else this checkout's node path (init says so) or npx.
     init owns that entry whole: any other key in it (env, cwd) is removed.

A project's config that leads outside the project (a symlink) or writes a key of the entry's
path twice stops init, and nothing is written.

  --client <name>   a client to register in (repeatable); default: each client whose config
                    already exists. Names and files:
                      claude-code     .mcp.json (mcpServers)
                      codex           ~/.codex/config.toml ([mcp_servers.harness]; CODEX_HOME)
                      cursor          .cursor/mcp.json (mcpServers)
                      vscode          .vscode/mcp.json (servers, type stdio)
                      gemini          .gemini/settings.json (mcpServers)
                      claude-desktop  claude_desktop_config.json (mcpServers): ~/.config/Claude/
                                      on Linux, ~/Library/Application Support/Claude/ on macOS
  --import          also move the MCP servers of the clients' configs (.mcp.json, .cursor/mcp.json,
                    .vscode/mcp.json, .codex/config.toml, ~/.codex/config.toml) into the workspace's
                    mcp_servers, granted to coder: each env and header value moves into the
                    instance's credentials.json (0600) and the entry names it as
                    {{credential.NAME}}; each entry leaves the config it came from, whose client
                    then reaches it through harness. An entry it cannot map stays, with a line
                    saying why. Every file it changes is backed up first (copies readable by you
                    alone). Then it starts each server once (confined as its entry says), shows
                    each tool (signature, the server's annotations), writes { effects: read } under
                    the entry's tools: for those you confirm only read (asked on a terminal; none
                    elsewhere), and accepts every listed definition as pinned, in the instance (it
                    creates the instance when there is none). A server that does not start keeps
                    its entry, with nothing accepted, and a line saying how to do it later
  --yes             with --import: confirm as reads exactly the tools whose readOnlyHint is true,
                    without asking (a comment beside each says so)
  --undo            restore every file the last --import run changed, byte for byte, and remove
                    those it created; refused when one of them changed since. The definitions it
                    accepted stay in the instance's store and audit chain (they serve nothing once
                    their entries are gone)
  --dry-run         print the unified diff of every file it would write (secrets masked), and
                    write nothing
  --force           write .harness/workspace.yaml even when it exists
  --keep            keep an existing .harness/workspace.yaml that init did not write, after you
                    have reviewed it (init records it, and asks again only when it changes)
  --instance <dir>  the instance the clients' server keeps its approvals and audit in (default
                    ~/.local/share/harness/<dir name>-<hash of its path>)

A second run changes nothing and says so. When any file cannot take its change (a client config
that does not parse, a directory that cannot be written), nothing is written and each is named.
docs/init.md has the details.`;

/** Runs `harness init`. */
export async function initCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    client: { type: 'string', multiple: true },
    'dry-run': { type: 'boolean' },
    force: { type: 'boolean' },
    keep: { type: 'boolean' },
    instance: { type: 'string' },
    import: { type: 'boolean' },
    yes: { type: 'boolean' },
    undo: { type: 'boolean' },
  });
  if (values.help) {
    out(help);
    return 0;
  }
  if (positionals.length > 1)
    throw new CliError(
      'usage',
      `expected at most one directory, found ${positionals.length}: ${positionals.join(' ')}`,
    );
  if (values.force === true && values.keep === true)
    throw new CliError(
      'usage',
      '--force and --keep contradict each other: --force replaces the workspace, --keep keeps it',
    );
  if (values.yes === true && values.import !== true)
    throw new CliError(
      'usage',
      '--yes confirms the tools of the servers --import brings in; it takes --import',
    );
  if (values.undo === true) {
    const others = ['client', 'dry-run', 'force', 'keep', 'instance', 'import', 'yes'].filter(
      (k) => values[k as keyof typeof values] !== undefined,
    );
    if (others.length > 0)
      throw new CliError('usage', `--undo takes no other flag, found --${others.join(', --')}`);
    return undo(positionals[0] ?? process.cwd());
  }
  const initial = await planInit({
    dir: positionals[0] ?? process.cwd(),
    clients: values.client === undefined ? undefined : clientIds(values.client),
    existing: values.force === true ? 'force' : values.keep === true ? 'keep' : 'ask',
    instance: values.instance,
    import: values.import === true,
  });
  const dryRun = values['dry-run'] === true;
  printFound(initial);
  if (initial.problems.length > 0) {
    for (const problem of initial.problems) err(`harness: ${problem}`);
    throw new CliError(
      'config',
      `nothing written: ${initial.problems.length} file(s) cannot take the change (above)`,
    );
  }
  const plan = dryRun ? await showReview(initial) : await settleReview(initial);
  printChanges(plan, dryRun);
  printImported(plan, dryRun);
  const pending = plan.changes.filter(writes).length;
  if (dryRun) {
    printDiffs(plan);
    const asks = plan.changes.some((c) => c.action === 'review')
      ? '; a run first asks whether to keep the workspace harness init did not write'
      : '';
    out(
      pending === 0 && asks === ''
        ? 'nothing to change'
        : `dry run: nothing written (${pending} file(s) would change${asks})`,
    );
    return 0;
  }
  if (pending === 0) out('nothing to change: every file is already as harness init would write it');
  else if (plan.imported !== undefined) {
    const backup = new Backup(undoDir(plan.recordDir, realpathSync(plan.projectDir)));
    const written = plan.changes
      .filter(writes)
      .map((c) => (existsSync(c.path) ? realpathSync(c.path) : c.path));
    try {
      for (const path of [...written, recordFile(plan.recordDir, plan.workspaceTarget)]) backup.save(path);
      out(`wrote ${applyChanges(plan.changes)} file(s)`);
    } catch (error) {
      backup.discard();
      throw error;
    }
    // The files are written whatever the servers do next: the backup names what is written now.
    let settled = plan;
    try {
      settled = await pinImported(plan, confirmOf(values.yes === true));
    } catch (error) {
      importProblem(
        `the imported servers' tools were not settled (${(error as Error).message}); the files stay as written: harness servers review <id>, then harness servers accept <id> --all`,
      );
    }
    recordWorkspace(settled);
    backup.commit(realpathSync(plan.projectDir));
    out('harness init --undo restores every file this run changed');
  } else out(`wrote ${applyChanges(plan.changes)} file(s)`);
  if (plan.imported === undefined || pending === 0) recordWorkspace(plan);
  printNextSteps(plan);
  return 0;
}

/** `harness init --undo`: the last import's files, restored. */
function undo(dir: string): number {
  const projectDir = resolve(dir);
  if (!existsSync(projectDir) || !statSync(projectDir).isDirectory())
    throw new CliError('usage', `${projectDir} is not a directory; give the repository's top directory`);
  const home = process.env.HOME || homedir();
  const lines = undoImport(undoDir(recordDir(home, process.env), realpathSync(projectDir)));
  out(`harness init --undo: ${projectDir}`);
  for (const line of lines) out(line);
  out(`restored ${lines.length} file(s) as they were before harness init --import`);
  out(
    "the tool definitions it accepted stay in the instance's store, as its audit chain records them: with their servers gone from the workspace they serve nothing",
  );
  return 0;
}

/** How the tools of imported servers are confirmed: --yes, a terminal's answers, or none. */
function confirmOf(yes: boolean): Confirm {
  if (yes) return 'yes';
  return process.stdin.isTTY === true && process.stdout.isTTY === true ? 'ask' : 'none';
}

/**
 * With the workspace and credentials.json written: starts each imported server once, shows its
 * tools, writes the confirmed reads into the workspace and accepts every listed definition in the
 * instance (created when there is none). Returns the plan as written now (the workspace's text).
 * Nothing here fails the run: a step that cannot be done says so, and the files stay as written.
 */
async function pinImported(plan: InitPlan, confirm: Confirm): Promise<InitPlan> {
  const servers = plan.imported?.servers ?? [];
  const change = plan.changes.find((c) => c.path === plan.workspaceFile);
  if (servers.length === 0 || change === undefined || !writes(change)) return plan;
  out(`import: starting each of the ${servers.length} imported server(s) once to list its tools`);
  const { openOrCreate } = await import('../embedded');
  const { openStore } = await import('@harness/host');
  const { personName } = await import('@harness/host/operator');
  const { openInstanceStore, readReports } = await import('../servers-report');
  let instanceDir: string;
  try {
    const { plan: embedded } = await openOrCreate({
      instance: plan.instanceDir,
      workspace: plan.workspaceFile,
      agent: AGENT,
    });
    instanceDir = embedded.location.instanceDir;
  } catch (error) {
    importProblem(
      `the instance ${plan.instanceDir} cannot keep the accepted definitions: ${(error as Error).message}`,
    );
    for (const s of servers) out(notListedLine(s.id, 'it was not started: the instance cannot be opened'));
    return plan;
  }
  let store: Awaited<ReturnType<typeof openInstanceStore>>;
  try {
    store = await openInstanceStore(openStore, instanceDir);
  } catch (error) {
    importProblem(`the store of ${instanceDir} cannot be opened: ${(error as Error).message}`);
    for (const s of servers) out(notListedLine(s.id, 'it was not started: the store cannot be opened'));
    return plan;
  }
  let outcomes: Awaited<ReturnType<typeof settleTools>>;
  try {
    const { reports } = await readReports(plan.workspaceFile, instanceDir, store);
    outcomes = await settleTools(servers, reports, store, confirm, personName());
  } catch (error) {
    importProblem(
      `listing the imported servers, or accepting their definitions, failed: ${(error as Error).message}`,
    );
    for (const s of servers) out(notListedLine(s.id, 'see above'));
    return plan;
  } finally {
    await store.close();
  }
  const settled = servers.map((s) => {
    const o = outcomes.find((x) => x.id === s.id);
    return o?.ok === true ? { ...s, pinned: true, reads: o.reads } : s;
  });
  const text = renderWorkspace(plan.choice, await standardCatalog(), plan.projectDir, settled);
  if (text === change.after) return plan;
  // The workspace is written again only as init wrote it a moment ago: an edit since is kept.
  const now = existsSync(plan.workspaceFile) ? readFileSync(plan.workspaceFile, 'utf8') : undefined;
  if (now !== change.after) {
    importProblem(
      `${plan.workspaceFile} changed since harness init wrote it, so the tools you confirmed are not written into it`,
    );
    return plan;
  }
  const update: FileChange = { ...change, before: now, after: text, action: 'update' };
  applyChanges([update]);
  const reads = settled.reduce((n, s) => n + (s.reads?.length ?? 0), 0);
  out(
    reads === 0
      ? `import: ${plan.workspaceFile} declares no tool of them a read: each call of one waits for your approval`
      : `import: ${plan.workspaceFile} declares ${reads} tool(s) a read under tools:, each with who confirmed it`,
  );
  return { ...plan, changes: plan.changes.map((c) => (c === change ? { ...change, after: text } : c)) };
}

/** Under --dry-run: the workspace to review is shown, and stays as it is (`would ask`). */
async function showReview(plan: InitPlan): Promise<InitPlan> {
  const review = plan.changes.find((c) => c.action === 'review');
  if (review !== undefined) await printReview(plan, review);
  return plan;
}

/**
 * The plan once the person has decided on a workspace init did not write: shown with what it
 * grants, then asked on a terminal; anywhere else init stops, naming the flags that decide.
 */
async function settleReview(plan: InitPlan): Promise<InitPlan> {
  const review = plan.changes.find((c) => c.action === 'review');
  if (review === undefined) return plan;
  await printReview(plan, review);
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const choice = interactive ? await askKeepOrReplace(review.path) : 'stop';
  if (choice === 'stop')
    throw new CliError(
      'config',
      interactive
        ? `nothing written: ${review.path} was neither kept nor replaced`
        : `nothing written: ${review.path} was not written by harness init (or changed since it was); review it (above, and in your editor), then run harness init again with --keep to keep it as it is, or --force to replace it with what harness init writes`,
    );
  const settled: FileChange =
    choice === 'keep'
      ? {
          ...review,
          action: 'kept',
          detail: 'kept as you reviewed it: harness init asks again only if it changes',
        }
      : {
          ...review,
          action: 'update',
          after: review.replacement ?? review.after,
          detail: 'replaced with what harness init writes, as you chose',
        };
  return { ...plan, changes: plan.changes.map((c) => (c === review ? settled : c)) };
}

/** The `--client` values, each checked against the known names. */
function clientIds(given: readonly string[]): ClientId[] {
  const ids: ClientId[] = [];
  for (const name of given) {
    if (!(CLIENT_IDS as readonly string[]).includes(name))
      throw new CliError(
        'usage',
        `--client: unknown client '${name}'; expected one of ${CLIENT_IDS.join(', ')}`,
      );
    if (!ids.includes(name as ClientId)) ids.push(name as ClientId);
  }
  return ids;
}
