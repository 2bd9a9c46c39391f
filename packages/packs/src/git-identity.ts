// The person's git identity: user.name and user.email read from their own global git configuration
// (~/.gitconfig and $XDG_CONFIG_HOME/git/config), never from a repository's, for the standard git
// pack's commits (docs/standard-packs.md, "Who commits"). Nothing else of that configuration is read:
// not user.signingkey (commits are never signed), not a driver, not an alias.
import { ExecError, run } from '@harness/exec';
import { FALLBACK_PATH } from '@harness/exec/internal';
import { PROBE_TIMEOUT_MS } from './units';

/** A person's git identity as their global configuration gives it. */
export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/** What reading the identity found: the identity, or why there is none to use (`message` says how to set it). */
export type GitIdentityRead =
  | { readonly ok: true; readonly identity: GitIdentity }
  | { readonly ok: false; readonly reason: 'unset' | 'invalid' | 'unreadable'; readonly message: string };

/** Where {@link readGitIdentity} looks: the person's home, and the variables of theirs git reads. */
export interface GitIdentityOptions {
  /** The person's home directory (`HOME` for git). */
  readonly home: string;
  /** Where `XDG_CONFIG_HOME` and `GIT_CONFIG_GLOBAL` are read from (absent there: git's defaults). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The `PATH` git is found on. Default: this process's. */
  readonly path?: string;
}

/** The longest name or email accepted, in characters. */
export const GIT_IDENTITY_MAX_LENGTH = 256;

/** The variables a commit reads its author and committer from, in the order they are set. */
export const GIT_IDENTITY_ENV = [
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
] as const;

const HOW_TO_SET =
  'git config --global user.name "Your Name" and git config --global user.email you@example.com';

/**
 * Reads `user.name` and `user.email` with `git config --global --includes --get`, from the person's
 * home (so no repository is in reach: a repository's `.git/config` is never read), with an
 * environment holding only `HOME`, `PATH` and the person's `XDG_CONFIG_HOME` / `GIT_CONFIG_GLOBAL`,
 * each read bounded by the probe timeout. A value with a control character (a newline, a NUL) or
 * longer than {@link GIT_IDENTITY_MAX_LENGTH} is refused (`invalid`); an empty one is unset.
 */
export async function readGitIdentity(options: GitIdentityOptions): Promise<GitIdentityRead> {
  const values: string[] = [];
  for (const key of ['user.name', 'user.email']) {
    const got = await readKey(key, options);
    if (typeof got !== 'string') return got;
    const bad = refusal(got);
    if (bad !== undefined)
      return {
        ok: false,
        reason: 'invalid',
        message: `${key} in your global git configuration ${bad}, so it is not given to git's commits; set it again with ${HOW_TO_SET}`,
      };
    values.push(got);
  }
  const [name = '', email = ''] = values;
  if (name === '' || email === '') {
    const missing = [name === '' ? 'user.name' : '', email === '' ? 'user.email' : ''].filter(Boolean);
    return {
      ok: false,
      reason: 'unset',
      message: `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set in your global git configuration (~/.gitconfig or ~/.config/git/config), so git.commit has no identity of yours and fails with "Author identity unknown"; set it with ${HOW_TO_SET}`,
    };
  }
  return { ok: true, identity: { name, email } };
}

/** The author and committer variables of `identity`, by name. */
export function gitIdentityEnv(identity: GitIdentity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
}

/** Why `value` is refused, or `undefined` when it is fine. */
function refusal(value: string): string | undefined {
  if (value.includes('\0')) return 'holds a NUL character';
  if (/[\n\r]/.test(value)) return 'holds a line break';
  if ([...value].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f')) return 'holds a control character';
  if ([...value].length > GIT_IDENTITY_MAX_LENGTH)
    return `is longer than ${GIT_IDENTITY_MAX_LENGTH} characters`;
  return undefined;
}

/** One key's value ('' when unset), or the failed read. */
async function readKey(
  key: string,
  options: GitIdentityOptions,
): Promise<string | Extract<GitIdentityRead, { ok: false }>> {
  const env: Record<string, string> = {
    HOME: options.home,
    PATH: options.path ?? process.env.PATH ?? FALLBACK_PATH,
  };
  for (const name of ['XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL']) {
    const value = options.env?.[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  const unreadable = (why: string) =>
    ({
      ok: false,
      reason: 'unreadable',
      message: `your global git configuration could not be read (${why}), so git.commit has no identity of yours`,
    }) as const;
  try {
    const r = await run({
      argv: ['git', 'config', '--global', '--includes', '--get', key],
      env,
      cwd: options.home,
      timeoutMs: PROBE_TIMEOUT_MS,
      maxOutputBytes: 64 * 1024,
      onExceed: 'truncate',
      killGraceMs: 500,
    });
    if (r.timedOut) return unreadable(`git config did not finish within ${PROBE_TIMEOUT_MS / 1000}s`);
    // 1: the key is not set.
    if (r.exitCode === 1) return '';
    if (r.exitCode !== 0)
      return unreadable(r.stderr.trim().split('\n')[0] || `git config exited ${r.exitCode}`);
    return r.stdout.endsWith('\n') ? r.stdout.slice(0, -1) : r.stdout;
  } catch (error) {
    if (error instanceof ExecError) return unreadable(error.message);
    throw error;
  }
}
