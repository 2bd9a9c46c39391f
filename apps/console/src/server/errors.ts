// The console's error class: a table of codes on the shared base (docs/errors.md). The HTTP API's
// answer codes are in ../api-errors.ts, shared with the page.
import { CodedError, type CodeOf, defineCodes } from '@harness/errors';

/** Codes of {@link ConsoleError}; the command line maps `usage` to exit 2 and every other to exit 3. */
export const ConsoleErrorCode = defineCodes({
  /** `--listen` is not `host:port`. */
  listen_invalid: 'listen_invalid',
  /** A non-loopback listener without a token. */
  token_required: 'token_required',
  /**
   * A non-loopback listener without TLS of its own (`--tls-cert`/`--tls-key`) and without both an
   * `https://` `--public-url` and the proxy named with `--trust-proxy`.
   */
  tls_required: 'tls_required',
  /** A `--trust-proxy` value that is not an IP address. */
  trust_proxy_invalid: 'trust_proxy_invalid',
  /** `--tls-cert`/`--tls-key` given alone, unreadable, or not a certificate and its key. */
  tls_invalid: 'tls_invalid',
  /** `--public-url` is not an origin (`https://host[:port]`, no path, query or fragment). */
  public_url_invalid: 'public_url_invalid',
  /** A token file that cannot be read, or a token too short. */
  token_invalid: 'token_invalid',
  /** The instance directory does not hold an instance. */
  instance_invalid: 'instance_invalid',
  /** `--loom-authoring-config` is not an absolute path to a readable file. */
  authoring_config_invalid: 'authoring_config_invalid',
  /** The page (dist/web) is not built. */
  page_missing: 'page_missing',
  /** A command-line usage error. */
  usage: 'usage',
});

/** One of the {@link ConsoleErrorCode} values. */
export type ConsoleErrorCode = CodeOf<typeof ConsoleErrorCode>;

/** An error the console reports to the person who started it, one line. */
export class ConsoleError extends CodedError<ConsoleErrorCode> {
  override readonly name = 'ConsoleError';
}
