// The `harness` bin. Each subcommand lives in its own module and is imported only when named, so
// `harness --help` and `harness tmpl …` never load the MCP SDK or the host.
import { version } from '../package.json';
import { CliError, debugRequested, describeFailure, exitCodes } from './errors';
import { err, out } from './output';

const subcommands = {
  init: 'Set up this repository: write .harness/workspace.yaml from what it uses and register harness in your MCP clients',
  serve: 'Serve the host command tools (and Loom authoring tools) to any MCP client over stdio or HTTP',
  call: 'Call one tool once and print its result as JSON',
  capabilities: 'List the parent tools this CLI can serve and which are available with this configuration',
  packs:
    'Check a workspace file (packs check), show the catalog a model sees (packs list) or the argv a call would run (packs render)',
  servers:
    "List the upstream MCP servers a workspace governs, their state, confinement and tools (servers list), or show one's log (servers logs)",
  tmpl: "Check a runner's event or run template, or render it against a webhook delivery (not pack argv)",
  doctor: 'Check configuration, binaries, broker, socket permissions and store health',
  demo: 'Start serve on the embedded default, drive it with a real MCP client, print a transcript',
  runner: 'Run agents on webhooks, schedules or resident (runner check|start|describe)',
  runs: 'List the runs the runner recorded',
  trigger: 'Run one harness now, or replay a stored event into it',
  console: 'Open the console: a local web page to approve strict calls and read the audit and looms',
  approvals: 'List the calls waiting for a person, and approve or deny one (approvals list|approve|deny)',
  workspace:
    'Show a workspace edit that waits for a person, and accept or reject it (workspace pending|accept|reject)',
} as const;
type Subcommand = keyof typeof subcommands;

const usage = `harness: give an AI agent the commands you choose, and nothing else

Usage: harness <command> [options]

Commands:
${Object.entries(subcommands)
  .map(([name, summary]) => `  ${name.padEnd(13)} ${summary}`)
  .join('\n')}

Run 'harness <command> --help' for a command's options. --debug prints a stack on internal errors.
Exit codes: 0 ok, 1 a check or step failed, 2 usage, 3 configuration, 4 host unavailable, 70 internal.`;

async function load(name: Subcommand): Promise<(argv: string[]) => Promise<number>> {
  switch (name) {
    case 'init':
      return (await import('./commands/init')).initCommand;
    case 'serve':
      return (await import('./commands/serve')).serveCommand;
    case 'call':
      return (await import('./commands/call')).callCommand;
    case 'capabilities':
      return (await import('./commands/capabilities')).capabilitiesCommand;
    case 'packs':
      return (await import('./commands/packs')).packsCommand;
    case 'servers':
      return (await import('./commands/servers')).serversCommand;
    case 'tmpl':
      return (await import('./commands/tmpl')).tmplCommand;
    case 'doctor':
      return (await import('./commands/doctor')).doctorCommand;
    case 'demo':
      return (await import('./commands/demo')).demoCommand;
    case 'runner':
      return (await import('./commands/runner')).runnerCommand;
    case 'runs':
      return (await import('./commands/runs')).runsCommand;
    case 'trigger':
      return (await import('./commands/trigger')).triggerCommand;
    case 'console':
      return (await import('./commands/console')).consoleCommand;
    case 'approvals':
      return (await import('./commands/approvals')).approvalsCommand;
    case 'workspace':
      return (await import('./commands/workspace')).workspaceCommand;
  }
}

/** The known name closest to `name` by edit distance, when it is close enough to be a typo. */
function nearest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    out(usage);
    return name === undefined ? exitCodes.usage : 0;
  }
  if (name === '--version') {
    out(`harness ${version}`);
    return 0;
  }
  if (!(name in subcommands)) {
    const near = nearest(name, Object.keys(subcommands));
    throw new CliError(
      'usage',
      `unknown command '${name}'; ${near ? `did you mean '${near}'? ` : ''}expected one of ${Object.keys(subcommands).join(', ')}`,
    );
  }
  // serve's stdout is its MCP transport, which handles a client that went away itself.
  if (name !== 'serve') process.stdout.on('error', endOnClosedReader);
  const run = await load(name as Subcommand);
  return run(rest);
}

/**
 * A reader that stops early (`harness runs --json | head`) closes the pipe: what is left to print has
 * nowhere to go, and that is not a failure of the command. Anything else stays an error.
 */
function endOnClosedReader(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
}

// --debug is global: taken out wherever it stands, before a subcommand parses its flags.
const debug = debugRequested();
main(process.argv.slice(2).filter((a) => a !== '--debug')).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const failure = describeFailure(error, debug);
    for (const line of failure.lines) err(line);
    process.exitCode = failure.exitCode;
  },
);
