// Which forwarded headers the console believes: `X-Forwarded-For`, `X-Forwarded-Proto` and
// `Forwarded` say who the client is and whether it came over https, but anyone who reaches the
// listener can write them. They count only when the TCP peer is loopback or an address named with
// `--trust-proxy`; from anyone else they are ignored, and the real connection is what counts
// (docs/console.md, "Behind a proxy: whom the console believes").
import { isIP } from 'node:net';
import { ConsoleError, ConsoleErrorCode } from './errors';

/**
 * An IP address in one spelling, so two spellings of one address compare equal: IPv6 in its
 * canonical form, an IPv4-mapped IPv6 address (`::ffff:10.0.0.5`, what a listener on `::` sees)
 * as its IPv4 address, brackets and a zone id dropped. `undefined` for anything else.
 */
export function normaliseAddress(text: string): string | undefined {
  const bare = text
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  const kind = isIP(bare);
  if (kind === 4) return bare;
  if (kind !== 6) return undefined;
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped === null) return canonical;
  const high = Number.parseInt(mapped[1] as string, 16);
  const low = Number.parseInt(mapped[2] as string, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True for 127.0.0.0/8 and ::1 (in any spelling, IPv4-mapped too): a peer on this machine. */
export function isLoopbackAddress(address: string | undefined): boolean {
  const a = address === undefined ? undefined : normaliseAddress(address);
  return a === '::1' || (a !== undefined && isIP(a) === 4 && a.startsWith('127.'));
}

/**
 * Parses `--trust-proxy` values (the flag repeated, or comma-separated): IP addresses, normalised.
 * Anything else is refused (`trust_proxy_invalid`): a host name would be resolved by whoever
 * answers DNS, and a network range would trust every machine in it.
 */
export function parseTrustProxy(values: readonly string[]): string[] {
  const addresses: string[] = [];
  for (const value of values.flatMap((v) => v.split(','))) {
    const address = normaliseAddress(value);
    if (address === undefined) {
      throw new ConsoleError(
        ConsoleErrorCode.trust_proxy_invalid,
        `--trust-proxy takes the IP address the reverse proxy connects from (e.g. 10.0.0.5 or fd00::5; repeat the flag or separate addresses with commas), found ${JSON.stringify(value.trim())}`,
      );
    }
    if (!addresses.includes(address)) addresses.push(address);
  }
  return addresses;
}

/** What a trusted proxy said about a request: the client's address and the scheme it came over. */
export interface ForwardedFacts {
  /** The client address the proxy added: the last `X-Forwarded-For` entry, else `Forwarded`'s last `for`. */
  readonly client: string | undefined;
  /** The last `X-Forwarded-Proto` entry, else `Forwarded`'s last `proto`; lower case. */
  readonly proto: string | undefined;
}

/** The parameters of the last element of a `Forwarded` header (RFC 7239), names in lower case. */
function lastForwardedElement(header: string | undefined): Map<string, string> {
  const params = new Map<string, string>();
  const last = header?.split(',').at(-1);
  for (const pair of last?.split(';') ?? []) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const value = pair
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    params.set(pair.slice(0, eq).trim().toLowerCase(), value);
  }
  return params;
}

/** A `Forwarded` `for=` value as an address: `192.0.2.60:4711`, `"[2001:db8::17]:4711"`; else none. */
function forwardedForAddress(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (v6 !== null) return normaliseAddress(v6[1] as string);
  return normaliseAddress(value.replace(/:\d+$/, ''));
}

/**
 * Reads the forwarded headers of a request. The caller reads them only from a trusted peer: the
 * proxy appends its own entry last (nginx's `$proxy_add_x_forwarded_for`, Caddy's default), so
 * whatever a client wrote before it is skipped.
 */
export function readForwarded(header: (name: string) => string | undefined): ForwardedFacts {
  const lastOf = (name: string) => {
    const v = header(name)?.split(',').at(-1)?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const element = lastForwardedElement(header('forwarded'));
  return {
    client: lastOf('x-forwarded-for') ?? forwardedForAddress(element.get('for')),
    proto: (lastOf('x-forwarded-proto') ?? element.get('proto'))?.toLowerCase(),
  };
}
