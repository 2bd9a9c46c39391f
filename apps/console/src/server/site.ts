// Where people reach the console, and over what: the listener, a public URL when a TLS reverse
// proxy is in front, or TLS served by the console itself. From these follow the origin (the printed
// link, the Origin a state-changing request must carry, the passkeys' relying party), the Host
// values answered, and whether the console is reachable from other machines (docs/console.md,
// "Beyond loopback"), and whom its forwarded headers are believed from (./proxy.ts).
import { ConsoleError, ConsoleErrorCode } from './errors';
import { authority, isLoopback, type ListenAddress } from './listen';
import { isLoopbackAddress, normaliseAddress } from './proxy';

/** Who terminates TLS: the console itself, a reverse proxy in front of it, or nobody (loopback). */
export type TlsMode = 'self' | 'proxy' | 'none';

/** The console's site as people reach it. */
export interface Site {
  /** `self`: `--tls-cert`/`--tls-key`; `proxy`: an `https://` `--public-url`; `none`: plain HTTP. */
  readonly tls: TlsMode;
  /** Reachable from other machines: a non-loopback listener, or a public URL. */
  readonly exposed: boolean;
  /** The public URL's origin, when one is given. */
  readonly publicOrigin: string | undefined;
  /** The origin people open (the public URL's, else the listener's); the port once it listens. */
  origin(): string;
  /** The Host values answered; `undefined`: any (a non-loopback listener without a public URL). */
  hosts(): ReadonlySet<string> | undefined;
  /** The WebAuthn relying party id: the origin's host name. */
  rpId(): string;
  /** A proxy is in front: a `--public-url`, or `--trust-proxy`. Without one no forwarded header is read. */
  readonly behindProxy: boolean;
  /** Whether forwarded headers from this TCP peer count: loopback, or an address of `--trust-proxy`. */
  trusts(peer: string | undefined): boolean;
}

/** Parses `--public-url`: an origin, `https://` unless its host is loopback. */
export function parsePublicUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConsoleError(
      ConsoleErrorCode.public_url_invalid,
      `--public-url must be the address people open, e.g. https://console.example.org, found ${JSON.stringify(text)}`,
    );
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new ConsoleError(
      ConsoleErrorCode.public_url_invalid,
      `--public-url must be an origin (https://host or https://host:port, no path, query or credentials), found ${JSON.stringify(text)}`,
    );
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname.replace(/^\[|\]$/g, ''))) {
    throw new ConsoleError(
      ConsoleErrorCode.tls_required,
      `--public-url ${url.origin} is plain HTTP on a host other machines reach: a session cookie and every decision would cross the network in clear; put a TLS proxy in front and give its https:// address`,
    );
  }
  return url;
}

/**
 * The site of a listener, a public URL, TLS of its own and the proxies named by `--trust-proxy`
 * (normalised addresses, ./proxy.ts). Refuses (`tls_required`) a non-loopback listener without TLS
 * of its own unless an `https://` public URL and `--trust-proxy` say which proxy serves it over
 * https: otherwise anyone who reaches the listener directly would be served plain HTTP by writing
 * `X-Forwarded-Proto: https`.
 */
export function siteOf(
  listen: ListenAddress,
  port: () => number,
  publicUrl: URL | undefined,
  ownTls: boolean,
  trustProxy: readonly string[] = [],
): Site {
  const loopback = isLoopback(listen.host);
  const tls: TlsMode = ownTls ? 'self' : publicUrl?.protocol === 'https:' ? 'proxy' : 'none';
  const where = authority(listen.host, listen.port);
  if (!loopback && tls === 'none') {
    throw new ConsoleError(
      ConsoleErrorCode.tls_required,
      `--listen ${where} is not loopback, and the console would serve plain HTTP there; give --tls-cert <pem> and --tls-key <pem>, or --public-url https://… with --trust-proxy <the proxy's address> when a TLS reverse proxy is in front, or listen on 127.0.0.1`,
    );
  }
  if (!loopback && tls === 'proxy' && trustProxy.length === 0) {
    throw new ConsoleError(
      ConsoleErrorCode.tls_required,
      `--listen ${where} is not loopback and the console has no TLS of its own: with --public-url alone, anyone who reaches ${where} directly would be served plain HTTP by writing X-Forwarded-Proto: https; name the TLS reverse proxy with --trust-proxy <its IP address> (its forwarded headers are then the only ones believed), or give --tls-cert <pem> and --tls-key <pem>, or listen on 127.0.0.1 behind the proxy`,
    );
  }
  const trusted = new Set(trustProxy);
  const listenerOrigin = () => `${ownTls ? 'https' : 'http'}://${authority(listen.host, port())}`;
  return {
    tls,
    exposed: !loopback || publicUrl !== undefined,
    publicOrigin: publicUrl?.origin,
    origin: () => publicUrl?.origin ?? listenerOrigin(),
    hosts: () => {
      if (publicUrl !== undefined) return new Set([publicUrl.host.toLowerCase()]);
      if (!loopback) return undefined;
      const p = port();
      return new Set([authority(listen.host, p), `localhost:${p}`, `127.0.0.1:${p}`, `[::1]:${p}`]);
    },
    // A passkey needs a domain name here: an IP address is no relying party id (WebAuthn).
    rpId: () => new URL(publicUrl?.origin ?? listenerOrigin()).hostname,
    behindProxy: publicUrl !== undefined || trusted.size > 0,
    trusts: (peer) => {
      if (peer === undefined) return false;
      if (isLoopbackAddress(peer)) return true;
      const address = normaliseAddress(peer);
      return address !== undefined && trusted.has(address);
    },
  };
}
