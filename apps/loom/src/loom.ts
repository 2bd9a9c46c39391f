// The `loom` bin. Only `command list/run` over a broker is on every agent call's path, so this entry
// statically loads nothing but that path; every other subcommand imports the host when it runs.

import { version } from '../package.json';
import { commandMain } from './command';
import { HELP } from './help';

const out = (text: string): void => {
  process.stdout.write(text);
};

async function main(argv: readonly string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'command':
      return commandMain(rest, out);
    case 'broker':
    case 'approvals':
    case 'audit':
    case 'migrate':
    case 'init': {
      const { adminMain } = await import('./admin');
      return adminMain(cmd, rest, out);
    }
    case '--version':
      out(`loom ${version}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      out(HELP.main);
      return cmd === undefined ? 2 : 0;
    default:
      process.stderr.write(`loom: unknown command "${cmd}"; see loom --help\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`loom: internal error: ${(error as Error).message}\n`);
    if (process.argv.includes('--debug')) process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 4;
  },
);
