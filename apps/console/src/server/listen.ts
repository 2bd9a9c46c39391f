// `--listen host:port`: parsing, and whether the host is loopback.
import { isIP } from 'node:net';
import { ConsoleError, ConsoleErrorCode } from './errors';

/** The default listener: loopback only. */
export const DEFAULT_LISTEN = '127.0.0.1:8787';

/** A parsed listen address. `host` is bare (no brackets for IPv6). */
export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `host:port` or `[v6]:port`; port 0 asks the system for a free one. */
export function parseListen(text: string): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (!m || host === undefined || !Number.isInteger(port) || port > 65_535) {
    throw new ConsoleError(
      ConsoleErrorCode.listen_invalid,
      `--listen must be host:port (e.g. ${DEFAULT_LISTEN}, or [::1]:8787), found ${JSON.stringify(text)}`,
    );
  }
  return { host, port };
}

/** True for 127.0.0.0/8, ::1 and `localhost`: an address only this machine reaches. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** `host:port` as a URL authority (IPv6 in brackets). */
export function authority(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
