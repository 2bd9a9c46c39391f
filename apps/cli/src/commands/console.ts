// `harness console`: the console (apps/console) on the embedded default instance, the instance of
// the project it runs in, or --instance.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { shellWord } from '@harness/config/instance';
import { embeddedFailure, planEmbedded, recordCreatedKey } from '../embedded';
import { CliError } from '../errors';
import { err, out } from '../output';
import { projectFor, projectLine } from '../project';

/** Runs `harness console`; returns when the console is stopped (SIGINT, SIGTERM). */
export async function consoleCommand(argv: string[]): Promise<number> {
  const console_ = await import('@harness/console');
  let flags: ReturnType<typeof console_.parseConsoleFlags>;
  try {
    flags = console_.parseConsoleFlags(argv);
  } catch (error) {
    throw new CliError('usage', (error as Error).message);
  }
  if (flags.help) {
    out(console_.CONSOLE_HELP.trimEnd());
    return 0;
  }
  // In a project harness init set up, the console opens the project's instance, as serve does.
  const project = projectFor({ instance: flags.instance });
  if (project !== undefined) err(projectLine(project));
  const plan = await planEmbedded({ instance: flags.instance, project });
  if (!plan.exists && flags.instance !== undefined) {
    // A named instance is made by the serve that names it, with its own workspace: made here, it
    // would be bound to the example workspace, and that serve would then refuse it.
    const dir = shellWord(plan.location.instanceDir);
    throw new CliError(
      'config',
      `no instance at ${dir}: it is created by the first \`harness serve --instance ${dir}\` (the one your MCP client starts, or run it once with --workspace <file> --agent <id>); the console does not create a named instance`,
    );
  }
  if (!plan.exists) {
    // The first command on a fresh machine may be this one: create the instance as `serve` would.
    const { initInstance } = await import('@harness/host');
    try {
      mkdirSync(dirname(plan.location.instanceDir), { recursive: true });
      await initInstance(plan.location.instanceDir, plan.workspaceFile, { serves: plan.serves });
      await recordCreatedKey(plan.location.instanceDir);
    } catch (error) {
      throw embeddedFailure(error, plan, { instance: flags.instance, project });
    }
  }
  try {
    const options = await console_.resolveConsoleOptions(flags, plan.location.instanceDir);
    const running = await console_.runConsole(options, (line) => out(line));
    await console_.untilStopped(running);
    return 0;
  } catch (error) {
    if (error instanceof console_.ConsoleError) {
      throw new CliError(error.code === 'usage' ? 'usage' : 'config', error.message, { cause: error });
    }
    throw error;
  }
}
