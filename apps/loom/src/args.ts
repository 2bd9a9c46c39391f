// A small argv parser: the CLI is on the path of every agent call, so it takes no dependency but the
// error base.
import { LoomError, LoomErrorCode } from './errors';

/** Flags a subcommand accepts: `true` takes a value, `false` is a switch. */
export type FlagSpec = Record<string, boolean>;

/** Parsed arguments. */
export interface Parsed {
  positional: string[];
  flags: Record<string, string | true>;
}

/** Parses `argv` against `spec`; `--help`/`-h` is always accepted. Throws a `usage` {@link LoomError}. */
export function parseArgs(argv: readonly string[], spec: FlagSpec): Parsed {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a === '-h' || a === '--help') {
      flags.help = true;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      if (!(name in spec)) throw new LoomError(LoomErrorCode.usage, `unknown flag --${name}; see --help`);
      if (spec[name]) {
        const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
        if (value === undefined) throw new LoomError(LoomErrorCode.usage, `--${name} needs a value`);
        if (name in flags) throw new LoomError(LoomErrorCode.usage, `--${name} given twice`);
        flags[name] = value;
      } else {
        if (eq >= 0) throw new LoomError(LoomErrorCode.usage, `--${name} takes no value`);
        flags[name] = true;
      }
      continue;
    }
    if (a.startsWith('-') && a !== '-') {
      const name = a.slice(1);
      if (name in spec && spec[name]) {
        const value = argv[++i];
        if (value === undefined) throw new LoomError(LoomErrorCode.usage, `-${name} needs a value`);
        flags[name] = value;
        continue;
      }
      throw new LoomError(LoomErrorCode.usage, `unknown flag ${a}; see --help`);
    }
    positional.push(a);
  }
  return { positional, flags };
}

/** A flag's string value, or undefined. */
export function str(p: Parsed, name: string): string | undefined {
  const v = p.flags[name];
  return typeof v === 'string' ? v : undefined;
}
