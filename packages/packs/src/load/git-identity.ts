// The person's git identity given to each standard git pack of a load (`LoadOptions.gitIdentity`):
// read once, from their global git configuration, and set as the pack's `personEnv` (the author and
// committer variables), which every plan shows and every run sets after the pack's `env`.
import { homedir } from 'node:os';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import { GIT_IDENTITY_ENV, type GitIdentityRead, gitIdentityEnv, readGitIdentity } from '../git-identity';
import type { Pack } from '../types';
import type { BuildContext } from './types';

/**
 * `packs` with each standard git pack given the person's identity, where `ctx.options.gitIdentity`
 * asks for it. A pack whose `env` points `GIT_CONFIG_GLOBAL` at a file of its own (that file's
 * identity is the one it chose) or sets every author and committer variable itself is left as it
 * is; a variable the pack's `env` sets wins over the person's. No identity to give: a `git_identity`
 * warning at the pack's entry (`indexOf`: its index in `command_packs`), and the pack runs as before.
 */
export async function applyGitIdentity(
  packs: readonly Pack[],
  indexOf: (id: string) => number,
  ctx: BuildContext,
  warnings: PacksIssue[],
): Promise<Pack[]> {
  const { options } = ctx;
  if (options.gitIdentity !== true) return [...packs];
  let read: Promise<GitIdentityRead> | undefined;
  const out: Pack[] = [];
  for (const pack of packs) {
    const open = GIT_IDENTITY_ENV.filter((name) => !Object.hasOwn(pack.env, name));
    if (pack.standard !== 'git' || pack.env.GIT_CONFIG_GLOBAL !== '/dev/null' || open.length === 0) {
      out.push(pack);
      continue;
    }
    read ??= readGitIdentity({
      home: options.home ?? homedir(),
      env: options.env ?? process.env,
      ...(options.path === undefined ? {} : { path: options.path }),
    });
    const found = await read;
    if (!found.ok) {
      warnings.push(
        ctx.issue(
          Code.git_identity,
          ['command_packs', indexOf(pack.id)],
          `pack "${pack.id}": ${found.message}`,
          {
            pack: pack.id,
            reason: found.reason,
          },
        ),
      );
      out.push(pack);
      continue;
    }
    const all = gitIdentityEnv(found.identity);
    const personEnv = Object.freeze(Object.fromEntries(open.map((name) => [name, all[name] ?? ''])));
    out.push(Object.freeze({ ...pack, personEnv }));
  }
  return out;
}
