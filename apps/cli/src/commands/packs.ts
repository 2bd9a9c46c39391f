// `harness packs check|list|render`: validate a workspace file (every load error with
// file:line:column, requirement probes), print the catalog exactly as a model sees it through
// list_commands, or show the argv a call would run without running it.
import { resolve } from 'node:path';
import { parse } from '../args';
import { exampleWorkspace } from '../embedded';
import { CliError } from '../errors';
import { sessionFlags, sessionFlagsHelp, sessionOptions } from '../flags';
import { err, out, printJson } from '../output';
import { findProject, projectLine } from '../project';

const help = `Usage:
  harness packs check [workspace.yaml | --workspace <file>] [--no-probe] [--json]
  harness packs list [workspace.yaml | --workspace <file>] [--json] [configuration]
  harness packs list --standard [--json]
  harness packs render <pack.command> [--args <json>] [--workspace <file>] [--json]

None of them creates or changes an instance.

check  loads the workspace file (default: the project's .harness/workspace.yaml inside a project
       harness init set up, else the example workspace) and prints every load error as
       file:line:column with what was expected and what was found. Requirements are probed
       (<binary> --version) unless --no-probe; an optional pack whose binary is missing is
       reported as left out. Exit 1 when the file does not load.
list   prints the catalog a model sees: the list_commands result of this configuration (the
       embedded default when no configuration is given), one signature per line; with --json
       the list_commands result itself. Takes the configuration flags of serve and call, and the
       workspace file as check does. With the embedded default it reads what the instance serves
       (or would serve, created with these flags) through a scratch copy in the temp directory:
       the instance is neither created nor changed.
       --standard: the standard packs bundled with this release instead (docs/standard-packs.md),
       each with its commands' signatures, tier and the program each runs here; a pack whose
       binary is missing here says so.
render shows the argv a call of a command with these arguments would run, its working directory
       and its environment (each credential as a marker such as [credential token]), after the
       same argument checks and leading-dash refusal as a run; it runs nothing. --workspace:
       the workspace file (default as for check). Exit 1 when the call would be refused.

Configuration flags of list:

${sessionFlagsHelp}`;

/** Runs `harness packs`. */
export async function packsCommand(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h') {
    out(help);
    return verb === undefined ? 2 : 0;
  }
  if (verb === 'check') return check(rest);
  if (verb === 'list') return list(rest);
  if (verb === 'render') return renderCall(rest);
  throw new CliError('usage', `unknown packs command '${verb}'; expected check, list or render`);
}

/**
 * The workspace file of a command given none: the project's, run inside a project harness init set
 * up (said on stderr), else the example workspace.
 */
function defaultWorkspace(): string {
  const project = findProject();
  if (project === undefined) return exampleWorkspace();
  err(projectLine(project));
  return project.workspaceFile;
}

/**
 * The workspace file a command names, as a positional or with `--workspace` (`undefined` when
 * neither); both naming different files, or two positionals, is a usage error naming them.
 */
function workspaceArgument(
  verb: string,
  positionals: string[],
  flag: string | undefined,
): string | undefined {
  if (positionals.length > 1) {
    throw new CliError(
      'usage',
      `packs ${verb} takes one workspace file, found ${positionals.length}: ${positionals.join(', ')}`,
    );
  }
  const [given] = positionals;
  if (given !== undefined && flag !== undefined && resolve(given) !== resolve(flag)) {
    throw new CliError(
      'usage',
      `packs ${verb} was given two workspace files, ${given} and --workspace ${flag}; give one`,
    );
  }
  return given ?? flag;
}

async function check(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    workspace: { type: 'string' },
    'no-probe': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    out(help);
    return 0;
  }
  const given = workspaceArgument('check', positionals, values.workspace);
  const { formatIssue } = await import('@harness/packs');
  const { loadWorkspace } = await import('@harness/workspace');
  const file = given ?? defaultWorkspace();
  const result = await loadWorkspace({ file }, { probe: values['no-probe'] !== true });
  if (values.json) {
    printJson(
      result.ok
        ? {
            ok: true,
            file,
            packs: result.workspace.packs.map((p) => p.id),
            unavailable: result.workspace.unavailable,
            agents: result.workspace.agents.map((a) => ({ id: a.id, commands: a.commands })),
            ...(result.workspace.servers.length > 0
              ? { servers: result.workspace.servers.map((s) => s.id) }
              : {}),
            warnings: result.warnings.map(formatIssue),
          }
        : { ok: false, file, issues: result.issues.map((i) => ({ ...i, text: formatIssue(i) })) },
    );
    return result.ok ? 0 : 1;
  }
  if (!result.ok) {
    for (const issue of result.issues) out(formatIssue(issue));
    out(`${result.issues.length} error(s): ${file} does not load`);
    return 1;
  }
  const ws = result.workspace;
  for (const warning of result.warnings) out(`warning: ${formatIssue(warning)}`);
  for (const pack of ws.unavailable) out(`left out: pack ${pack.id}: ${pack.reason}`);
  out(
    `ok: ${file}: ${ws.packs.length} pack(s), ${ws.agents.length} agent(s)${ws.servers.length > 0 ? `, ${ws.servers.length} server(s)` : ''}`,
  );
  for (const agent of ws.agents) {
    const held = [...agent.commands, ...agent.servers.map((s) => `server:${s}`)];
    out(`  agent ${agent.id}: ${held.join(', ') || '(no commands)'}`);
  }
  return 0;
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...sessionFlags,
    json: { type: 'boolean' },
    standard: { type: 'boolean' },
  });
  if (values.help) {
    out(help);
    return 0;
  }
  if (values.standard) {
    if (positionals.length > 0 || values.workspace !== undefined) {
      throw new CliError(
        'usage',
        'packs list --standard lists the packs bundled with this release and takes no workspace file; drop --standard to list a workspace',
      );
    }
    return listStandard(values.json === true);
  }
  const workspace = workspaceArgument('list', positionals, values.workspace);
  const { openSession } = await import('../session');
  // A listing creates and changes nothing: the embedded host runs on a scratch instance.
  const session = await openSession({ ...sessionOptions(values), workspace, scratch: true, log: err });
  try {
    const result = (await session.call('list_commands', {})) as {
      status?: string;
      entries?: { signature: string; title?: string }[];
      hidden?: number;
      omitted?: number;
    };
    if (values.json) {
      printJson(result);
    } else {
      for (const entry of result.entries ?? []) out(entry.signature);
      out(
        `(${result.entries?.length ?? 0} command(s); hidden ${result.hidden ?? 0}, omitted ${result.omitted ?? 0})`,
      );
    }
    return result.status === 'ok' ? 0 : 1;
  } finally {
    await session.close();
  }
}

/** `packs list --standard`: the bundled packs, each command as the one-line signature a model reads. */
async function listStandard(json: boolean): Promise<number> {
  const { describeStandardPacks } = await import('@harness/packs');
  const { renderSignature } = await import('@harness/signature');
  const packs = (await describeStandardPacks()).map((pack) => ({
    ...pack,
    commands: pack.commands.map((c) => ({
      ...c,
      signature: renderSignature({ name: c.id, inputSchema: c.inputs, effect: c.effect }),
    })),
  }));
  if (json) {
    printJson({ packs });
    return 0;
  }
  for (const pack of packs) {
    out(`${pack.id}: ${pack.description}`);
    if (!pack.available) out(`  (left out on this machine: ${pack.reason})`);
    for (const c of pack.commands) out(`  ${c.signature}  ${c.tier}, runs ${c.program}`);
  }
  out(`(${packs.length} standard pack(s); declare one under command_packs as "- standard: <name>")`);
  return 0;
}

async function renderCall(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    args: { type: 'string' },
    workspace: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    out(help);
    return 0;
  }
  const [commandId] = positionals;
  if (commandId === undefined || positionals.length > 1) {
    throw new CliError(
      'usage',
      'packs render needs one command id, e.g. harness packs render files.grep --args \'{"pattern":"TODO"}\'',
    );
  }
  let args: unknown = {};
  if (values.args !== undefined) {
    try {
      args = JSON.parse(values.args);
    } catch (error) {
      throw new CliError(
        'usage',
        `--args is not JSON (${(error as Error).message}); expected an object, e.g. --args '{"pattern":"TODO"}'`,
        { cause: error },
      );
    }
  }
  const { formatIssue, renderPackCommand } = await import('@harness/packs');
  const { loadWorkspace } = await import('@harness/workspace');
  const file = values.workspace ?? defaultWorkspace();
  const loaded = await loadWorkspace({ file });
  if (!loaded.ok) {
    for (const issue of loaded.issues) out(formatIssue(issue));
    out(`${loaded.issues.length} error(s): ${file} does not load; nothing rendered`);
    return 1;
  }
  const r = renderPackCommand(loaded.workspace, commandId, args);
  if (values.json) {
    printJson(r.ok ? r : { ok: false, issues: r.issues.map((i) => ({ ...i, text: formatIssue(i) })) });
    return r.ok ? 0 : 1;
  }
  if (!r.ok) {
    for (const issue of r.issues) out(`refused: ${formatIssue(issue)}`);
    return 1;
  }
  out(`argv: ${JSON.stringify(r.argv)}`);
  out(`cwd:  ${r.cwd}`);
  const env = Object.entries(r.env);
  out(`env:  ${env.length === 0 ? '(none besides PATH)' : env.map(([k, v]) => `${k}=${v}`).join(' ')}`);
  out('(not run)');
  return 0;
}
