import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses a subcommand's arguments strictly; an unknown flag or a missing value is a usage error naming it. */
export function parse<const O extends Options>(argv: string[], options: O, allowPositionals = true) {
  try {
    return parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals,
      strict: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError('usage', `${message.replace(/\. To specify.*$/s, '')} (see --help)`, { cause: error });
  }
}
