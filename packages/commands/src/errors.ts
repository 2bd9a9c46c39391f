import { CodedError, type CodeOf, defineCodes } from '@harness/errors';

/** Every code a {@link CommandsError} can carry. Callers branch on `code`, never on message text. */
export const CommandsErrorCode = defineCodes({
  /** A host configuration file could not be read or failed its schema. */
  config_invalid: 'config_invalid',
  /** A tool was asked for without the host configuration it needs. */
  not_configured: 'not_configured',
  /** An option passed by the embedder (not the model) is invalid. */
  invalid_option: 'invalid_option',
});

/** One of the {@link CommandsErrorCode} values. */
export type CommandsErrorCode = CodeOf<typeof CommandsErrorCode>;

/**
 * The one error class of `@harness/commands`. Only embedder mistakes throw (a bad configuration,
 * a bad option); everything the model or the host can cause comes back as data in a tool result.
 */
export class CommandsError extends CodedError<CommandsErrorCode> {
  override readonly name = 'CommandsError';
}
