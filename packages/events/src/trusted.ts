import { ACTOR_PATTERN } from './patterns';

/** One problem in a `trusted_actors` list. */
export interface TrustedActorIssue {
  code: 'not_a_user';
  /** Index of the entry in the list. */
  index: number;
  message: string;
}

/** The outcome of {@link checkTrustedActors}. */
export type TrustedActorsResult =
  | { ok: true; value: readonly string[] }
  | { ok: false; issues: TrustedActorIssue[] };

/**
 * Checks a webhook source's `trusted_actors` list at config load.
 *
 * Entries are forge user names only: an org or team (`my-org/maintainers`, `@my-org`) is never resolved
 * (that needs a forge client in the daemon), so it is a load error rather than an entry that silently
 * never matches. Matching at extraction is case-insensitive.
 */
export function checkTrustedActors(list: readonly unknown[]): TrustedActorsResult {
  const issues: TrustedActorIssue[] = [];
  const value: string[] = [];
  list.forEach((entry, index) => {
    if (typeof entry === 'string' && ACTOR_PATTERN.test(entry)) {
      value.push(entry);
      return;
    }
    const team = typeof entry === 'string' && (entry.includes('/') || entry.startsWith('@'));
    issues.push({
      code: 'not_a_user',
      index,
      message: team
        ? `trusted_actors[${index}] names an org or team: expected a user name matching ${ACTOR_PATTERN.source}; orgs and teams are never resolved, so list each user.`
        : `trusted_actors[${index}] is not a user name: expected a string matching ${ACTOR_PATTERN.source}.`,
    });
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}
