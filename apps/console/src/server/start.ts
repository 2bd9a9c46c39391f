// Starts a console: checks the instance and the options, opens the store, listens, and hands back
// the one-time login URL to print.
import type { AddressInfo } from 'node:net';
import { openStore, readInstance } from '@harness/host';
import { serve } from '@hono/node-server';
import { createConsoleApp } from './app';
import type { ConsoleContext } from './context';
import { ConsoleError, ConsoleErrorCode } from './errors';
import { authority, DEFAULT_LISTEN, isLoopback, parseListen } from './listen';
import { showDuration, TOKEN_PARAM } from './security';
import {
  type Clock,
  DEFAULT_SESSION_IDLE_MS,
  DEFAULT_SESSION_LIFETIME_MS,
  type SessionLimits,
  Sessions,
} from './session-store';
import { Watch } from './watch';

/** The shortest operator token accepted (`--token-file`, `HARNESS_CONSOLE_TOKEN`). */
export const MIN_TOKEN_LENGTH = 32;

export interface StartConsoleOptions {
  instanceDir: string;
  /** `host:port`; default 127.0.0.1:8787. Port 0 takes a free port. */
  listen?: string;
  /** The operator's login token; required when `listen` is not loopback. */
  token?: string;
  /** An absolute, already validated `--loom-authoring-config` path. */
  authoringConfig?: string;
  /** Who decides, as recorded on approvals; default `person:$USER`. */
  person?: string;
  /** Where the built page is (tests, a custom build). */
  webDir?: string;
  /** The live feed's polling interval (ms). */
  pollMs?: number;
  /** A console session with no request the person made for this long ends; default 30 min. */
  sessionIdleMs?: number;
  /** A console session ends this long after its login, used or not; default 12 h. */
  sessionLifetimeMs?: number;
  /** What sessions read the time from (ms since the epoch); default `Date.now`. Tests move it. */
  clock?: Clock;
}

/** A running console. */
export interface RunningConsole {
  /** `http://host:port` */
  readonly origin: string;
  readonly port: number;
  /** The printed URL: the origin with a fresh single-use login token. */
  readonly url: string;
  readonly ctx: ConsoleContext;
  /** Another single-use login URL (a second browser, a test). */
  loginUrl(): string;
  close(): Promise<void>;
}

/** The session limits of `options`, each a positive whole number of ms, the idle one within the lifetime. */
function sessionLimits(options: StartConsoleOptions): SessionLimits {
  const limits = {
    idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    lifetimeMs: options.sessionLifetimeMs ?? DEFAULT_SESSION_LIFETIME_MS,
  };
  for (const [name, ms] of [
    ['session idle limit', limits.idleMs],
    ['session lifetime', limits.lifetimeMs],
  ] as const) {
    if (!Number.isSafeInteger(ms) || ms <= 0) {
      throw new ConsoleError(
        ConsoleErrorCode.usage,
        `the ${name} must be a positive whole number of milliseconds, found ${ms}`,
      );
    }
  }
  if (limits.idleMs > limits.lifetimeMs) {
    throw new ConsoleError(
      ConsoleErrorCode.usage,
      `the session idle limit (${showDuration(limits.idleMs)}) is longer than the session lifetime (${showDuration(limits.lifetimeMs)}), so it would never apply; make --session-idle at most --session-lifetime`,
    );
  }
  return limits;
}

export async function startConsole(options: StartConsoleOptions): Promise<RunningConsole> {
  const listen = parseListen(options.listen ?? DEFAULT_LISTEN);
  const limits = sessionLimits(options);
  const loopback = isLoopback(listen.host);
  if (options.token !== undefined && options.token.length < MIN_TOKEN_LENGTH) {
    throw new ConsoleError(
      ConsoleErrorCode.token_invalid,
      `the console token must be at least ${MIN_TOKEN_LENGTH} characters (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  if (!loopback && options.token === undefined) {
    throw new ConsoleError(
      ConsoleErrorCode.token_required,
      `--listen ${options.listen} is not loopback: anyone who reaches it could approve commands, so the console needs a token; put one in a file readable only by you and pass --token-file <path> (or set HARNESS_CONSOLE_TOKEN), or listen on 127.0.0.1`,
    );
  }
  let instance: ReturnType<typeof readInstance>;
  try {
    instance = readInstance(options.instanceDir);
  } catch (error) {
    throw new ConsoleError(
      ConsoleErrorCode.instance_invalid,
      `cannot open the instance ${options.instanceDir}: ${(error as Error).message}`,
    );
  }
  const store = await openStore(instance.dir);
  const watch = new Watch(options.pollMs);
  const sessions = new Sessions(options.token, limits, options.clock);
  const ctx: ConsoleContext = {
    instanceDir: instance.dir,
    store,
    watch,
    authoringConfig: options.authoringConfig,
    person: options.person ?? `person:${process.env.USER ?? 'owner'}`,
    sessions,
  };
  let port = listen.port;
  try {
    const app = createConsoleApp({
      ctx,
      listen: { host: listen.host, port: () => port },
      ...(options.webDir === undefined ? {} : { webDir: options.webDir }),
    });
    const server = serve({ fetch: app.fetch, hostname: listen.host, port: listen.port });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    port = (server.address() as AddressInfo).port;
    const origin = `http://${authority(listen.host, port)}`;
    const loginUrl = () => `${origin}/?${TOKEN_PARAM}=${sessions.issueLoginToken()}`;
    return {
      origin,
      port,
      url: loginUrl(),
      ctx,
      loginUrl,
      async close() {
        watch.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        });
        await store.close();
      },
    };
  } catch (error) {
    watch.stop();
    await store.close();
    throw error;
  }
}
