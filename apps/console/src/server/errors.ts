// The console's error codes: one map, snake_case, as every package's errors.ts.

export const CONSOLE_ERROR_CODES = {
  /** `--listen` is not `host:port`. */
  listenInvalid: 'listen_invalid',
  /** A non-loopback listener without a token. */
  tokenRequired: 'token_required',
  /** A token file that cannot be read, or a token too short. */
  tokenInvalid: 'token_invalid',
  /** The instance directory does not hold an instance. */
  instanceInvalid: 'instance_invalid',
  /** `--loom-authoring-config` is not an absolute path to a readable file. */
  authoringConfigInvalid: 'authoring_config_invalid',
  /** The page (dist/web) is not built. */
  pageMissing: 'page_missing',
  /** A command-line usage error. */
  usage: 'usage',
} as const;

export type ConsoleErrorCode = (typeof CONSOLE_ERROR_CODES)[keyof typeof CONSOLE_ERROR_CODES];

/** An error the console reports to the person who started it, one line. */
export class ConsoleError extends Error {
  override readonly name = 'ConsoleError';
  constructor(
    readonly code: ConsoleErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The answer codes of the console's HTTP API (`{ error: { code, message } }`). */
export const API_ERROR_CODES = {
  unauthenticated: 'unauthenticated',
  forbiddenOrigin: 'forbidden_origin',
  csrfInvalid: 'csrf_invalid',
  hostRefused: 'host_refused',
  notFound: 'not_found',
  badRequest: 'bad_request',
  conflict: 'conflict',
  internal: 'internal',
} as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[keyof typeof API_ERROR_CODES];
