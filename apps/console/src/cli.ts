// `harness console` (and the package's own `harness-console` bin): parse the flags, start the
// console, print its one-time login URL, run until SIGINT or SIGTERM.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AUTHORING_CONFIG_ENV, readAuthoringConfig, resolveConfigPath } from '@harness/commands';
import { parseDuration } from '@harness/config';
import { ConsoleError, ConsoleErrorCode } from './server/errors';
import { DEFAULT_LISTEN } from './server/listen';
import { parseTrustProxy } from './server/proxy';
import { DEFAULT_SESSION_IDLE_MS, DEFAULT_SESSION_LIFETIME_MS } from './server/session-store';
import { type RunningConsole, type StartConsoleOptions, startConsole } from './server/start';

/** The environment variable holding the operator's login token (never a flag: argv is public). */
export const TOKEN_ENV = 'HARNESS_CONSOLE_TOKEN';

/** The environment variable holding the token a Prometheus scrape job gives for GET /metrics. */
export const METRICS_TOKEN_ENV = 'HARNESS_CONSOLE_METRICS_TOKEN';

export const CONSOLE_HELP = `Usage: harness console [--instance <dir>] [--listen 127.0.0.1:8787] [options]

Starts the console: a local web page to approve strict calls, read the audit and the looms.
It prints a link with a one-time token; opening it logs that browser in (a session cookie).
A session ends when unused for --session-idle, at --session-lifetime, or at Log out; a new
link then logs in again (restart the console to print one).

Options:
  --instance <dir>                    the instance directory (default: the embedded default,
                                      $HARNESS_HOME or ~/.local/share/harness/default)
  --listen <host:port>                where to listen (default ${DEFAULT_LISTEN}, loopback only)
  --token-file <path>                 a login token the operator keeps (env ${TOKEN_ENV});
                                      required when --listen is not loopback
  --metrics-token-file <path>         serve Prometheus metrics at /metrics to a bearer of this
                                      token (env ${METRICS_TOKEN_ENV}); it reads nothing else
  --public-url <https://host[:port]>  the address people open when a TLS reverse proxy is in
                                      front; Host and Origin are held to it
  --trust-proxy <ip>[,<ip>…]          the address the TLS reverse proxy connects from (repeatable);
                                      forwarded headers (X-Forwarded-For, X-Forwarded-Proto,
                                      Forwarded) count only from it and from loopback
  --tls-cert <pem> --tls-key <pem>    serve HTTPS with this certificate and key
                                      (--listen off loopback needs these, or --public-url
                                      with --trust-proxy)
  --loom-authoring-config <abs path>  host config of the Loom authoring tools (env ${AUTHORING_CONFIG_ENV}),
                                      used by Tasks
  --session-idle <duration>           a session nobody used for this long ends (default
                                      ${durationFlag(DEFAULT_SESSION_IDLE_MS)}; e.g. 90s, 10m, 1h; at most 24h)
  --session-lifetime <duration>       a session ends this long after its login (default
                                      ${durationFlag(DEFAULT_SESSION_LIFETIME_MS)}; at most 24h)
  -h, --help                          this help
`;

/** Parsed flags, before anything is opened. */
export interface ConsoleFlags {
  instance: string | undefined;
  listen: string;
  tokenFile: string | undefined;
  metricsTokenFile: string | undefined;
  publicUrl: string | undefined;
  /** `--trust-proxy`, each value as given (repeated, or comma-separated); checked at start. */
  trustProxy: string[];
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  authoringConfig: string | undefined;
  /** `--session-idle` in ms; the default when absent. */
  sessionIdleMs: number;
  /** `--session-lifetime` in ms; the default when absent. */
  sessionLifetimeMs: number;
  help: boolean;
}

/** A default duration as the flags take it: `30m`, `12h`. */
function durationFlag(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms}ms`;
}

/** A duration flag's value in ms (`30m`, `12h`, `90s`: the pack timeouts' notation), else a usage error. */
function durationValue(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new ConsoleError(
      ConsoleErrorCode.usage,
      `${flag} must be a duration with a unit, more than 0 and at most 24h (e.g. 90s, 30m, 12h), found '${text}'`,
    );
  }
  return ms;
}

/** Parses argv; unknown flags and stray arguments are usage errors. */
export function parseConsoleFlags(argv: readonly string[]): ConsoleFlags {
  let parsed: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        instance: { type: 'string' },
        listen: { type: 'string' },
        'token-file': { type: 'string' },
        'metrics-token-file': { type: 'string' },
        'public-url': { type: 'string' },
        'trust-proxy': { type: 'string', multiple: true },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'loom-authoring-config': { type: 'string' },
        'session-idle': { type: 'string' },
        'session-lifetime': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  }
  try {
    parsed = parse();
  } catch (error) {
    throw new ConsoleError(ConsoleErrorCode.usage, `${(error as Error).message}; see --help`);
  }
  const v = parsed.values;
  return {
    instance: v.instance,
    listen: v.listen ?? DEFAULT_LISTEN,
    tokenFile: v['token-file'],
    metricsTokenFile: v['metrics-token-file'],
    publicUrl: v['public-url'],
    trustProxy: v['trust-proxy'] ?? [],
    tlsCert: v['tls-cert'],
    tlsKey: v['tls-key'],
    authoringConfig: v['loom-authoring-config'],
    sessionIdleMs: durationValue('--session-idle', v['session-idle'], DEFAULT_SESSION_IDLE_MS),
    sessionLifetimeMs: durationValue(
      '--session-lifetime',
      v['session-lifetime'],
      DEFAULT_SESSION_LIFETIME_MS,
    ),
    help: v.help === true,
  };
}

/** A token from its file (the flag wins), else from its environment variable; none when neither. */
function readToken(flag: string, file: string | undefined, fromEnv: string | undefined): string | undefined {
  if (file === undefined) return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConsoleError(
      ConsoleErrorCode.token_invalid,
      `${flag} ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** Reads `--tls-cert` and `--tls-key` (both or neither); the PEM texts. */
function readTls(flags: ConsoleFlags): { cert: string; key: string } | undefined {
  if (flags.tlsCert === undefined && flags.tlsKey === undefined) return undefined;
  if (flags.tlsCert === undefined || flags.tlsKey === undefined) {
    throw new ConsoleError(
      ConsoleErrorCode.tls_invalid,
      '--tls-cert and --tls-key go together: give the certificate (PEM) and its private key (PEM)',
    );
  }
  const read = (flag: string, path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConsoleError(
        ConsoleErrorCode.tls_invalid,
        `${flag} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  };
  return { cert: read('--tls-cert', flags.tlsCert), key: read('--tls-key', flags.tlsKey) };
}

/**
 * Turns flags and the environment into start options: reads the token file, checks the authoring
 * configuration (absolute, a valid file) before anything listens (LA-03, LA-04: the flag wins).
 */
export async function resolveConsoleOptions(
  flags: ConsoleFlags,
  instanceDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StartConsoleOptions> {
  const token = readToken('--token-file', flags.tokenFile, env[TOKEN_ENV]);
  const metricsToken = readToken('--metrics-token-file', flags.metricsTokenFile, env[METRICS_TOKEN_ENV]);
  const tls = readTls(flags);
  const path = resolveConfigPath({ flag: flags.authoringConfig, env: env[AUTHORING_CONFIG_ENV] });
  if (!path.ok) {
    throw new ConsoleError(
      ConsoleErrorCode.authoring_config_invalid,
      `--loom-authoring-config: ${path.issues.map((i) => i.message).join('; ')}`,
    );
  }
  if (path.value !== undefined) {
    const config = readAuthoringConfig(path.value);
    if (!config.ok) {
      throw new ConsoleError(
        ConsoleErrorCode.authoring_config_invalid,
        `--loom-authoring-config: ${config.issues.map((i) => i.message).join('; ')}`,
      );
    }
  }
  return {
    instanceDir,
    listen: flags.listen,
    sessionIdleMs: flags.sessionIdleMs,
    sessionLifetimeMs: flags.sessionLifetimeMs,
    ...(token === undefined ? {} : { token }),
    ...(metricsToken === undefined ? {} : { metricsToken }),
    ...(flags.publicUrl === undefined ? {} : { publicUrl: flags.publicUrl }),
    ...(flags.trustProxy.length === 0 ? {} : { trustProxy: parseTrustProxy(flags.trustProxy) }),
    ...(tls === undefined ? {} : { tls }),
    ...(path.value === undefined ? {} : { authoringConfig: path.value }),
  };
}

/** Starts a console and prints its link; resolves with the running console. */
export async function runConsole(
  options: StartConsoleOptions,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<RunningConsole> {
  const running = await startConsole(options);
  print(`harness console: instance ${running.ctx.instanceDir}`);
  if (running.ctx.authoringConfig !== undefined) {
    print(`harness console: Loom authoring configuration ${running.ctx.authoringConfig}`);
  }
  print(`harness console: open ${running.url}`);
  print('harness console: the link logs in once; Ctrl-C stops the console');
  return running;
}

/** Waits for SIGINT or SIGTERM, then closes the console. */
export async function untilStopped(running: RunningConsole): Promise<void> {
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
}

/** The `harness-console` bin: `--instance`, else `$HARNESS_HOME`, else `$LOOM_INSTANCE_DIR`. */
export async function consoleMain(argv: readonly string[]): Promise<number> {
  try {
    const flags = parseConsoleFlags(argv);
    if (flags.help) {
      process.stdout.write(CONSOLE_HELP);
      return 0;
    }
    const instanceDir = flags.instance ?? (process.env.HARNESS_HOME || process.env.LOOM_INSTANCE_DIR);
    if (instanceDir === undefined) {
      throw new ConsoleError(
        ConsoleErrorCode.usage,
        '--instance <dir> is required (or set HARNESS_HOME); `harness console` opens the embedded default',
      );
    }
    const running = await runConsole(await resolveConsoleOptions(flags, instanceDir));
    await untilStopped(running);
    return 0;
  } catch (error) {
    if (error instanceof ConsoleError) {
      process.stderr.write(`harness-console: ${error.message}\n`);
      return error.code === ConsoleErrorCode.usage ? 2 : 3;
    }
    throw error;
  }
}
