// Starts a console: checks the instance and the options, opens the store, listens, and hands back
// the one-time login URL to print.

import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { openStore, readInstance } from '@harness/host';
import { serve } from '@hono/node-server';
import { createConsoleApp } from './app';
import type { ConsoleContext } from './context';
import { ConsoleError, ConsoleErrorCode } from './errors';
import { DEFAULT_LISTEN, isLoopback, parseListen } from './listen';
import { Ceremonies } from './passkeys/ceremonies';
import { PasskeyStore } from './passkeys/store';
import { parseTrustProxy } from './proxy';
import { RateLimiter } from './rate-limit';
import { showDuration, TOKEN_PARAM } from './security';
import {
  type Clock,
  DEFAULT_SESSION_IDLE_MS,
  DEFAULT_SESSION_LIFETIME_MS,
  type SessionLimits,
  Sessions,
} from './session-store';
import { parsePublicUrl, siteOf } from './site';
import { Watch } from './watch';

/** The shortest operator token accepted (`--token-file`, `HARNESS_CONSOLE_TOKEN`). */
export const MIN_TOKEN_LENGTH = 32;

export interface StartConsoleOptions {
  instanceDir: string;
  /** `host:port`; default 127.0.0.1:8787. Port 0 takes a free port. */
  listen?: string;
  /** The operator's login token; required when `listen` is not loopback. */
  token?: string;
  /** The bearer token a Prometheus scrape job gives for GET /metrics; none: /metrics is off. */
  metricsToken?: string;
  /** The address people open when a TLS reverse proxy is in front (`https://host[:port]`). */
  publicUrl?: string;
  /**
   * The IP addresses of the reverse proxy in front (`--trust-proxy`): with loopback, the only peers
   * whose forwarded headers count. Needed for a non-loopback listener without TLS of its own.
   */
  trustProxy?: readonly string[];
  /** A certificate (chain) and its key, PEM: the console serves HTTPS itself. */
  tls?: { cert: string; key: string };
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
  /** The origin people open: the public URL's, else `http(s)://host:port`. */
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

/** Checks a certificate and its key before anything listens. */
function checkTls(tls: { cert: string; key: string }): void {
  try {
    createSecureContext({ cert: tls.cert, key: tls.key });
  } catch (error) {
    throw new ConsoleError(
      ConsoleErrorCode.tls_invalid,
      `--tls-cert and --tls-key are not a PEM certificate and its private key (${(error as Error).message})`,
    );
  }
}

export async function startConsole(options: StartConsoleOptions): Promise<RunningConsole> {
  const listen = parseListen(options.listen ?? DEFAULT_LISTEN);
  const limits = sessionLimits(options);
  const loopback = isLoopback(listen.host);
  const publicUrl = options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl);
  if (options.tls !== undefined) checkTls(options.tls);
  if (options.token !== undefined && options.token.length < MIN_TOKEN_LENGTH) {
    throw new ConsoleError(
      ConsoleErrorCode.token_invalid,
      `the console token must be at least ${MIN_TOKEN_LENGTH} characters (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  if (options.metricsToken !== undefined && options.metricsToken.length < MIN_TOKEN_LENGTH) {
    throw new ConsoleError(
      ConsoleErrorCode.token_invalid,
      `the metrics token must be at least ${MIN_TOKEN_LENGTH} characters (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  if (!loopback && options.token === undefined) {
    throw new ConsoleError(
      ConsoleErrorCode.token_required,
      `--listen ${options.listen} is not loopback: anyone who reaches it could approve commands, so the console needs a token; put one in a file readable only by you and pass --token-file <path> (or set HARNESS_CONSOLE_TOKEN), or listen on 127.0.0.1`,
    );
  }
  let port = listen.port;
  const trustProxy = parseTrustProxy(options.trustProxy ?? []);
  const site = siteOf(listen, () => port, publicUrl, options.tls !== undefined, trustProxy);
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
  const passkeys = new PasskeyStore(instance.dir, () => site.rpId());
  const watch = new Watch(options.pollMs);
  const sessions = new Sessions(options.token, limits, options.clock);
  const ctx: ConsoleContext = {
    instanceDir: instance.dir,
    store,
    watch,
    authoringConfig: options.authoringConfig,
    person: options.person ?? `person:${process.env.USER ?? 'owner'}`,
    sessions,
    site,
    passkeys,
    ceremonies: new Ceremonies(options.clock),
    limiter: new RateLimiter(undefined, undefined, options.clock),
  };
  try {
    const app = createConsoleApp({
      ctx,
      ...(options.webDir === undefined ? {} : { webDir: options.webDir }),
      metricsToken: options.metricsToken,
    });
    const server =
      options.tls === undefined
        ? serve({ fetch: app.fetch, hostname: listen.host, port: listen.port })
        : serve({
            fetch: app.fetch,
            hostname: listen.host,
            port: listen.port,
            createServer: createHttpsServer,
            serverOptions: { cert: options.tls.cert, key: options.tls.key },
          });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    port = (server.address() as AddressInfo).port;
    const origin = site.origin();
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
        passkeys.close();
        await store.close();
      },
    };
  } catch (error) {
    watch.stop();
    passkeys.close();
    await store.close();
    throw error;
  }
}
