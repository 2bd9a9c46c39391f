// `harness capabilities`: the CLI's capability response. It lists every parent tool the CLI can
// serve (the three host command tools and the three Loom authoring tools) and, for this
// configuration, which are available and why the others are not. It starts nothing.
import { parse } from '../args';
import { sessionFlags, sessionFlagsHelp, sessionOptions } from '../flags';
import { err, out, printJson } from '../output';
import { ALL_TOOLS, COMMAND_TOOLS, resolveOptions } from '../session';

const help = `Usage: harness capabilities [--json] [configuration]

Prints the parent tools this CLI can serve, with the configuration each needs, its effect class,
and whether this configuration makes it available (the same flags serve and call take). Nothing
is started: the configuration files are validated only as far as serve validates them before
start-up.

${sessionFlagsHelp}`;

const EFFECT: Record<(typeof ALL_TOOLS)[number], 'read' | 'write'> = {
  list_commands: 'read',
  run_command: 'write',
  run_read_command: 'read',
  loom_compose: 'write',
  loom_inspect: 'read',
  loom_authoring_context: 'read',
};

/** Runs `harness capabilities`. */
export async function capabilitiesCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { ...sessionFlags, json: { type: 'boolean' } }, false);
  if (values.help) {
    out(help);
    return 0;
  }
  const resolved = await resolveOptions(sessionOptions(values));
  for (const warning of resolved.warnings) err(`harness: warning: ${warning}`);
  const tools = ALL_TOOLS.map((name) => {
    const isCommand = (COMMAND_TOOLS as readonly string[]).includes(name);
    const needs = isCommand ? '--loom-commands-config' : '--loom-authoring-config';
    const configured =
      resolved.embedded || (isCommand ? resolved.commandsPath : resolved.authoringPath) !== undefined;
    const allowed = resolved.allowTools === undefined || resolved.allowTools.includes(name);
    const reason = !configured ? `no ${needs}` : !allowed ? 'not in the allowlist' : undefined;
    return {
      name,
      effect: EFFECT[name],
      needs,
      available: configured && allowed,
      ...(reason ? { reason } : {}),
    };
  });
  const response = {
    parentTools: [...ALL_TOOLS],
    embedded: resolved.embedded,
    tools,
  };
  if (values.json) printJson(response);
  else {
    out(`parent tools: ${response.parentTools.join(', ')}`);
    if (resolved.embedded) out('configuration: the embedded default (every tool configured)');
    for (const t of tools)
      out(
        `  ${t.available ? 'available' : 'absent   '} ${t.name.padEnd(24)} ${t.effect.padEnd(5)} ${t.reason ?? ''}`.trimEnd(),
      );
  }
  return 0;
}
