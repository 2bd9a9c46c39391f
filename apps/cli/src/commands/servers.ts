// `harness servers list|logs`: the workspace's upstream MCP servers as the broker runs them (each
// started, its tools listed with the signature a model reads, their effect, tier and the agents
// granted them, then closed), and the stderr the broker kept of one.
import { readFileSync } from 'node:fs';
import { parse } from '../args';
import { openOrCreate, planEmbedded } from '../embedded';
import { CliError } from '../errors';
import { err, out, printJson } from '../output';
import { projectFor, projectLine } from '../project';
import {
  confinementLine,
  instanceExists,
  type Located,
  readServers,
  type ServersReport,
  type ServerView,
  serversLine,
  transportLine,
} from '../servers-report';
import { decide, review } from './servers-review';

const help = `Usage:
  harness servers list [--workspace <file>] [--instance <dir>] [--agent <id>] [--json]
  harness servers logs <server id> [--workspace <file>] [--instance <dir>]
  harness servers review [<server id>] [--workspace <file>] [--instance <dir>] [--agent <id>] [--json]
  harness servers accept <server id>.<tool> --hash <hex> [--by <name>] [--workspace …] [--instance …] [--json]
  harness servers accept <server id> --all [--by <name>] [--workspace …] [--instance …] [--json]
  harness servers reject <server id>.<tool> --hash <hex> [--by <name>] [--workspace …] [--instance …] [--json]

list  starts each MCP server the workspace declares (mcp_servers) as the broker does, reads its
      tools, closes it again, and prints per server its transport (a stdio server's argv, an HTTP
      server's origin; env and header names, never their values), its state (ready, or failed and
      why), whether it runs confined (by bubblewrap or sandbox-exec) or unconfined and why, and its
      tier; then each tool: the signature the model reads, its effect as the workspace declares
      it, its tier, and the agents granted it (the whole server by server:<id>, or the tool by its
      id); and a warning for tools/permission_overrides keys naming a tool the server does not
      list. --agent <id>: only the tools that agent is granted. With an existing instance each
      server's stderr is kept in <instance>/servers/<id>.log, as a broker keeps it. --json: the
      same as JSON. Exit 0 when every server listed its tools, 1 when any failed (the others are
      still printed).
logs  prints <instance>/servers/<id>.log: the last stderr of that server, which the broker (and
      servers list) rewrites after each listing and call and at close. Exit 2 for an id the
      workspace does not declare.
review  starts the servers as list does and prints each tool held back from agents until a person
      accepts its definition (quarantined: new, or changed since accepted): its id, its definition
      hash, when it was first seen, and what changed against the accepted definition (description,
      each inputSchema/outputSchema keyword, each annotation; a new tool shows all of it), every
      text quoted, escaped and cut, and flagged when long, hiding characters, or addressed to the
      model. Exit 0.
accept  records the definition listed now as accepted, in the instance's store and audit chain;
      --hash must be its hash as review printed it, else nothing is accepted (exit 1: it changed
      since, review again). --all accepts every quarantined tool of the server as listed now,
      printing each hash. A running broker serves it at its next listing or call. Like serve, these
      three create the instance on first use (--agent <id>: the agent it serves, as serve's).
reject  records the definition as rejected (audited); the tool stays quarantined.

The workspace and instance are chosen as serve chooses them: --workspace, --instance or
HARNESS_HOME; else, run inside a project harness init set up, that project's; else the default
instance (and the workspace it records, or the example workspace).`;

/** Runs `harness servers`. */
export async function serversCommand(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h') {
    out(help);
    return verb === undefined ? 2 : 0;
  }
  if (verb === 'list') return list(rest);
  if (verb === 'logs') return logs(rest);
  if (verb === 'review') return review(rest, locateCreating);
  if (verb === 'accept') return decide(rest, locateCreating, 'accepted');
  if (verb === 'reject') return decide(rest, locateCreating, 'rejected');
  throw new CliError(
    'usage',
    `unknown servers command '${verb}'; expected list, logs, review, accept or reject`,
  );
}

/** The workspace file and instance directory a servers command reads, chosen as serve chooses them. */
async function locate(flags: {
  workspace?: string | undefined;
  instance?: string | undefined;
}): Promise<{ workspaceFile: string; instanceDir: string }> {
  const project = projectFor(flags);
  if (project !== undefined) err(projectLine(project));
  const options = { instance: flags.instance, workspace: flags.workspace, project };
  const plan = await planEmbedded(options);
  return { workspaceFile: plan.workspaceFile, instanceDir: plan.location.instanceDir };
}

/**
 * {@link locate}, creating the instance when it does not exist yet, as serve does on first use: the
 * definitions a person accepts are kept in its store.
 */
async function locateCreating(flags: {
  workspace?: string | undefined;
  instance?: string | undefined;
  agent?: string | undefined;
}): Promise<{ workspaceFile: string; instanceDir: string }> {
  const project = projectFor(flags);
  if (project !== undefined) err(projectLine(project));
  const { plan } = await openOrCreate({
    instance: flags.instance,
    workspace: flags.workspace,
    agent: flags.agent,
    project,
  });
  return { workspaceFile: plan.workspaceFile, instanceDir: plan.location.instanceDir };
}

async function list(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    {
      workspace: { type: 'string' },
      instance: { type: 'string' },
      agent: { type: 'string' },
      json: { type: 'boolean' },
    },
    false,
  );
  if (values.help) {
    out(help);
    return 0;
  }
  const { workspaceFile, instanceDir } = await locate(values);
  const report = await readServers(workspaceFile, instanceDir);
  const agent = values.agent;
  if (agent !== undefined && !report.agents.includes(agent)) {
    throw new CliError(
      'usage',
      `--agent ${agent}: the workspace ${workspaceFile} declares no such agent; its agents: ${report.agents.join(', ') || '(none)'}`,
    );
  }
  const shown = agent === undefined ? report : onlyGranted(report, agent);
  const failed = shown.servers.filter((s) => s.state === 'failed').length;
  if (values.json) {
    printJson({
      ok: failed === 0,
      workspace: shown.workspaceFile,
      ...(shown.instanceDir === undefined ? {} : { instance: shown.instanceDir }),
      ...(agent === undefined ? {} : { agent }),
      servers: shown.servers,
    });
    return failed === 0 ? 0 : 1;
  }
  if (shown.servers.length === 0) {
    out(`no MCP servers: ${workspaceFile} declares none under mcp_servers`);
    return 0;
  }
  for (const server of shown.servers) printServer(server, agent, values);
  const tools = shown.servers.reduce((n, s) => n + s.tools.length, 0);
  out(
    `(${shown.servers.length} server(s): ${shown.servers.length - failed} ready, ${failed} failed; ${tools} tool(s)${agent === undefined ? '' : ` granted to ${agent}`})`,
  );
  return failed === 0 ? 0 : 1;
}

/** The report with only the tools `agent` is granted. */
function onlyGranted(report: ServersReport, agent: string): ServersReport {
  return {
    ...report,
    servers: report.servers.map((s) => ({ ...s, tools: s.tools.filter((t) => t.agents.includes(agent)) })),
  };
}

function printServer(server: ServerView, agent: string | undefined, given: Located): void {
  out(`${server.id}  ${transportLine(server.transport)}`);
  out(
    `  state: ${server.state === 'ready' ? `ready, ${server.tools.length} tool(s)${agent === undefined ? '' : ` granted to ${agent}`}` : `failed: ${server.error}`}`,
  );
  out(`  ${confinementLine(server.confinement)}`);
  out(`  tier: ${server.tier}`);
  for (const tool of server.tools) {
    const agents = tool.agents.length === 0 ? 'granted to no agent' : `granted to ${tool.agents.join(', ')}`;
    out(`  ${tool.signature}  effect ${tool.effect}, tier ${tool.tier}, ${agents}`);
  }
  if (server.warning !== undefined) out(`  warning: ${server.warning}`);
  if (!server.pinned) out('  warning: pin: false: its tools are served as listed, with no review');
  if (server.quarantined.length > 0) {
    const ids = server.quarantined.map((q) => `${q.id} (${q.change})`).join(', ');
    out(
      `  quarantined until a person accepts them: ${ids}; review: ${serversLine(['review', server.id], given)}`,
    );
  }
}

async function logs(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    workspace: { type: 'string' },
    instance: { type: 'string' },
  });
  if (values.help) {
    out(help);
    return 0;
  }
  const [id] = positionals;
  if (id === undefined || positionals.length > 1) {
    throw new CliError('usage', 'servers logs needs one server id, e.g. harness servers logs github');
  }
  const { workspaceFile, instanceDir } = await locate(values);
  const { loadWorkspace, formatIssue } = await workspaceLoader();
  const loaded = await loadWorkspace({ file: workspaceFile }, { probe: false });
  if (!loaded.ok) {
    throw new CliError(
      'config',
      `the workspace ${workspaceFile} does not load:\n${loaded.issues.map(formatIssue).join('\n')}`,
    );
  }
  const ids = loaded.workspace.servers.map((s) => s.id);
  if (!ids.includes(id)) {
    throw new CliError(
      'usage',
      `no MCP server "${id}" in ${workspaceFile}; its servers: ${ids.join(', ') || '(none: it declares no mcp_servers)'}`,
    );
  }
  const { serverLogFile } = await import('@harness/host/internal');
  const file = serverLogFile(instanceDir, id);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const where = instanceExists(instanceDir) ? '' : ` (there is no instance at ${instanceDir} yet)`;
    out(`no log of ${id} yet: the broker has not started that server yet${where}`);
    return 0;
  }
  if (text === '') out(`(${id} wrote nothing to stderr)`);
  else process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

async function workspaceLoader() {
  const { loadWorkspace } = await import('@harness/workspace');
  const { formatIssue } = await import('@harness/packs');
  return { loadWorkspace, formatIssue };
}
