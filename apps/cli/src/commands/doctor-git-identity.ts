// `harness doctor`'s row for the person's git identity: the user.name and user.email of their global
// git configuration that the standard git pack's commits are made as (docs/standard-packs.md, "Who
// commits"), or how to set them.
import { homedir } from 'node:os';

/** One doctor row. */
export interface IdentityCheck {
  readonly status: 'ok' | 'warn';
  readonly detail: string;
}

/** The identity a commit of the git pack is made as, read as a broker reads it at load. */
export async function gitIdentityCheck(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<IdentityCheck> {
  const { readGitIdentity } = await import('@harness/packs');
  const read = await readGitIdentity({ home: env.HOME || homedir(), env });
  if (read.ok)
    return {
      status: 'ok',
      detail: `${read.identity.name} <${read.identity.email}> (user.name, user.email of your global git configuration): the git pack's commits are made as this`,
    };
  return { status: 'warn', detail: read.message };
}
