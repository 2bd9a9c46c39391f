// The package's one error class, thrown only for embedder mistakes.
/** Every code a {@link CommandsError} can carry. Callers branch on `code`, never on message text. */
export const CommandsErrorCode = {
  /** A host configuration file could not be read or failed its schema. */
  ConfigInvalid: 'config_invalid',
  /** A tool was asked for without the host configuration it needs. */
  NotConfigured: 'not_configured',
  /** An option passed by the embedder (not the model) is invalid. */
  InvalidOption: 'invalid_option',
} as const;

/** The union of {@link CommandsErrorCode} values. */
export type CommandsErrorCode = (typeof CommandsErrorCode)[keyof typeof CommandsErrorCode];

/**
 * The one error class of `@harness/commands`. Only embedder mistakes throw (a bad configuration,
 * a bad option); everything the model or the host can cause comes back as data in a tool result.
 */
export class CommandsError extends Error {
  /** Machine-readable reason; stable across releases. */
  readonly code: CommandsErrorCode;
  constructor(code: CommandsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommandsError';
    this.code = code;
  }
}
