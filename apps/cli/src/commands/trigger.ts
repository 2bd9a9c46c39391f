// `harness trigger <harness> [--event <envelope>]`: start one run by hand, or replay a stored event.
import { resolve } from 'node:path';
import { RunnerError, Supervisor } from '@harness/runner';
import { parse } from '../args';
import { embeddedLocation } from '../embedded';
import { CliError } from '../errors';
import { err, out, printJson } from '../output';
import { projectFor, projectLine } from '../project';
import { selfArgv } from '../self';
import { loadConfig } from './runner';
import { startOf } from './runs';

const help = `Usage: harness trigger <harness> --config <file> [--event <envelope.json>] [--instance <dir>] [--json]

Runs the harness once now and waits for it. With --event, replays a stored envelope: typed values
are extracted again from its body with the trigger source's scheme and trusted actors (a typed table
edited in the file is ignored). A required template value with no value is an error here (exit 1),
and nothing runs. Exit 0 when the run succeeded, 1 when it failed.`;

/** Runs `harness trigger`. */
export async function triggerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    config: { type: 'string' },
    event: { type: 'string' },
    instance: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    out(help);
    return 0;
  }
  const id = positionals[0];
  if (id === undefined) throw new CliError('usage', 'trigger needs a harness id (see --help)');
  const config = loadConfig(values.config);
  const project = projectFor({ instance: values.instance });
  if (project !== undefined) err(projectLine(project));
  const supervisor = new Supervisor(config, {
    instanceDir: embeddedLocation(values.instance, project).instanceDir,
    log: () => undefined,
    serveArgv: selfArgv(),
  });
  try {
    const run = await supervisor.runNow(
      id,
      values.event === undefined ? {} : { eventFile: resolve(values.event) },
    );
    if (values.json) printJson(run);
    else
      out(
        `run ${run.id} (${run.harness}): ${run.status}${run.reason ? ` (${run.reason})` : ''}${run.exit_code === null ? '' : `, exit ${run.exit_code}`}; ${startOf(run)}`,
      );
    if (run.status !== 'succeeded' && run.message) err(run.message);
    return run.status === 'succeeded' ? 0 : 1;
  } catch (error) {
    if (error instanceof RunnerError) {
      throw new CliError(error.code === 'template_unresolved' ? 'check_failed' : 'config', error.message, {
        cause: error,
      });
    }
    throw error;
  } finally {
    await supervisor.stop();
  }
}
