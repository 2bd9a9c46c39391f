// `harness runner check|start|describe`: the one-shot runner of seed 004 (docs/runner.md).
import { resolve } from 'node:path';
import {
  describeHarness,
  formatRunnerIssue,
  loadRunnerConfig,
  type RunnerConfig,
  RunnerError,
  Supervisor,
} from '@harness/runner';
import { version } from '../../package.json';
import { parse } from '../args';
import { embeddedLocation } from '../embedded';
import { CliError } from '../errors';
import { telemetryOptions } from '../otel';
import { type RunTracing, startRunTracing } from '../otel-runs';
import { err, out, printJson } from '../output';
import { projectFor, projectLine } from '../project';
import { selfArgv } from '../self';

const help = `Usage:
  harness runner check --config <file> [--project] [--json]
  harness runner start --config <file> [--instance <dir>] [--otel <url>]
  harness runner describe <harness> --config <file> [--json]

check     loads the runner file and reports every problem as file:line:column (exit 1), or ok.
          --project checks it as a repository's own runner file (untrusted_inline refused).
start     runs the webhook receiver, the schedules and the resident harnesses under one
          supervisor until SIGINT or SIGTERM. Runs are recorded in <instance>/runner/runs.db.
describe  shows every field of one harness as the runner resolved it.

Options:
  --config <file>     the runner file (YAML)
  --instance <dir>    the instance directory (env HARNESS_HOME; default ~/.local/share/harness/default)
  --otel <url>        start: export a span of each run over OTLP/HTTP to this base URL (else
                      OTEL_EXPORTER_OTLP_ENDPOINT, if set); see docs/observability.md
  --json              print JSON`;

/** Loads a runner file or throws a configuration error listing every issue. */
export function loadConfig(file: string | undefined, project = false): RunnerConfig {
  if (file === undefined) throw new CliError('usage', '--config <file> is required (see --help)');
  const loaded = loadRunnerConfig({ file: resolve(file) }, { project });
  if (!loaded.ok)
    throw new CliError(
      'config',
      `the runner file has ${loaded.issues.length} problem(s):\n${loaded.issues.map(formatRunnerIssue).join('\n')}`,
    );
  for (const w of loaded.warnings) err(`warning: ${formatRunnerIssue(w)}`);
  return loaded.config;
}

/** Runs `harness runner`. */
export async function runnerCommand(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  const { values, positionals } = parse(rest, {
    config: { type: 'string' },
    instance: { type: 'string' },
    project: { type: 'boolean' },
    json: { type: 'boolean' },
    otel: { type: 'string' },
  });
  if (values.help || verb === undefined || verb === '--help' || verb === '-h') {
    out(help);
    return verb === undefined ? 2 : 0;
  }
  switch (verb) {
    case 'check': {
      if (values.config === undefined)
        throw new CliError('usage', '--config <file> is required (see --help)');
      const loaded = loadRunnerConfig({ file: resolve(values.config) }, { project: values.project === true });
      if (values.json) {
        printJson(
          loaded.ok
            ? { ok: true, harnesses: loaded.config.harnesses.map((h) => h.id), warnings: loaded.warnings }
            : loaded,
        );
      } else if (loaded.ok) {
        for (const w of loaded.warnings) out(`warning: ${formatRunnerIssue(w)}`);
        out(
          `ok: ${loaded.config.harnesses.length} harness(es): ${loaded.config.harnesses.map((h) => h.id).join(', ')}`,
        );
      } else for (const issue of loaded.issues) out(formatRunnerIssue(issue));
      return loaded.ok ? 0 : 1;
    }
    case 'describe': {
      const config = loadConfig(values.config);
      const id = positionals[0];
      const h = config.harnesses.find((x) => x.id === id);
      if (h === undefined)
        throw new CliError(
          'usage',
          `no harness "${id ?? ''}"; the runner file declares: ${config.harnesses.map((x) => x.id).join(', ')}`,
        );
      const fields = describeHarness(h);
      if (values.json) printJson(fields);
      else
        for (const [k, v] of Object.entries(fields))
          out(`${k.padEnd(17)} ${typeof v === 'string' ? v : JSON.stringify(v)}`);
      return 0;
    }
    case 'start': {
      const otel = telemetryOptions(values.otel, false, process.env);
      const config = loadConfig(values.config);
      const tracing = otel === undefined ? undefined : await startRunTracing(otel, version);
      const project = projectFor({ instance: values.instance });
      if (project !== undefined) err(projectLine(project));
      try {
        return await start(config, embeddedLocation(values.instance, project).instanceDir, tracing);
      } finally {
        await tracing?.shutdown();
      }
    }
    default:
      throw new CliError('usage', `unknown runner command '${verb}'; expected check, start or describe`);
  }
}

async function start(config: RunnerConfig, instanceDir: string, tracing?: RunTracing): Promise<number> {
  const supervisor = new Supervisor(config, {
    instanceDir,
    log: (line) => err(line),
    serveArgv: selfArgv(),
    ...(tracing === undefined ? {} : { onRunEnded: (record) => tracing.runEnded(record) }),
  });
  let url: string | undefined;
  try {
    ({ url } = await supervisor.start());
  } catch (error) {
    await supervisor.stop().catch(() => undefined);
    if (error instanceof RunnerError) throw new CliError('config', error.message, { cause: error });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new CliError(
        'config',
        `cannot listen on ${config.listen?.host}:${config.listen?.port} (${code}); change listen`,
        { cause: error },
      );
    throw error;
  }
  out(
    `runner: ${config.harnesses.length} harness(es)${url ? `; receiver on ${url}/hooks/<source id>` : ''}; runs in ${instanceDir}/runner/runs.db`,
  );
  await new Promise<void>((resolveStop) => {
    const stop = (): void => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await supervisor.stop();
  return 0;
}
