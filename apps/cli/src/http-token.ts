// The bearer token every `harness serve --http` listener requires. Loopback is not a boundary
// between the users of one machine: any of them can connect to 127.0.0.1. So a token is always
// required; it comes from a file or the environment (never argv, which `ps` shows every user), or is
// generated once into a file only its owner can read.
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError } from './errors';

/** A token and where it came from (printed, never the token itself). */
export interface HttpToken {
  token: string;
  source: string;
}

// Reads a token file, refusing one that others may read or that belongs to someone else.
function readTokenFile(path: string, flag: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new CliError(
      'config',
      `${flag} ${path} cannot be read (${(error as NodeJS.ErrnoException).code}); give a file holding the token`,
      {
        cause: error,
      },
    );
  }
  try {
    const stat = fstatSync(fd);
    const me = process.getuid?.();
    if (me !== undefined && stat.uid !== me) {
      throw new CliError(
        'config',
        `${flag} ${path} belongs to user ${stat.uid}, not to you (${me}); use a token file of your own`,
      );
    }
    if ((stat.mode & 0o077) !== 0) {
      throw new CliError(
        'config',
        `${flag} ${path} may be read by other users (mode ${(stat.mode & 0o777).toString(8)}); run chmod 600 ${path}`,
      );
    }
    const token = readFileSync(fd, 'utf8').split('\n')[0]?.trim() ?? '';
    if (token.length < 16) {
      throw new CliError(
        'config',
        `${flag} ${path} holds no token of at least 16 characters on its first line`,
      );
    }
    return token;
  } finally {
    closeSync(fd);
  }
}

/**
 * The token for an HTTP listener: `--token-file`, else `HARNESS_HTTP_TOKEN`, else the file
 * `generatedPath`, created with a new random token (mode 0600) when missing.
 */
export function resolveHttpToken(tokenFile: string | undefined, generatedPath: string): HttpToken {
  if (tokenFile !== undefined) return { token: readTokenFile(tokenFile, '--token-file'), source: tokenFile };
  const env = process.env.HARNESS_HTTP_TOKEN;
  if (env) {
    if (env.length < 16) throw new CliError('config', 'HARNESS_HTTP_TOKEN must hold at least 16 characters');
    return { token: env, source: 'HARNESS_HTTP_TOKEN' };
  }
  mkdirSync(dirname(generatedPath), { recursive: true, mode: 0o700 });
  let fd: number | undefined;
  try {
    fd = openSync(generatedPath, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new CliError(
        'config',
        `cannot write the HTTP token to ${generatedPath}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }
  if (fd !== undefined) {
    writeSync(fd, `${randomBytes(32).toString('base64url')}\n`);
    closeSync(fd);
  }
  return { token: readTokenFile(generatedPath, 'the token file'), source: generatedPath };
}
