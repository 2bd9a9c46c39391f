// The captured webhook deliveries of `fixtures/webhooks/`, and the event name each forge sent with
// them (fixtures/webhooks/README.md). A fixture that no rule maps makes the fixture tests fail.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from './paths';

/** One captured webhook delivery from `fixtures/webhooks/<scheme>/`. */
export interface WebhookFixture {
  scheme: 'github' | 'gitea' | 'forgejo';
  file: string;
  body: unknown;
}

/** Every captured webhook delivery in `fixtures/webhooks/`. */
export function webhookFixtures(): WebhookFixture[] {
  const out: WebhookFixture[] = [];
  for (const scheme of ['github', 'gitea', 'forgejo'] as const) {
    const dir = join(fixturesDir, 'webhooks', scheme);
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      out.push({ scheme, file, body: JSON.parse(readFileSync(join(dir, file), 'utf8')) });
    }
  }
  return out;
}

const EVENT_RULES: ReadonlyArray<readonly [RegExp, (m: RegExpMatchArray) => string]> = [
  [/^pr_review_/, () => 'pull_request_review'],
  [/^(issue_comment_|pull_request_comment_)|^comment\.json$/, () => 'issue_comment'],
  [/^(pr_|pull_request_|HookPullRequest)/, () => 'pull_request'],
  [/^(push|HookPush)/, () => 'push'],
  [/^(branch|tag)_(create|delete)\.json$/, (m) => m[2] as string],
  [/^HookTag\.json$/, () => 'create'],
  [/^issues_/, () => 'issues'],
  [/^(release_|HookRelease)/, () => 'release'],
  [/^check_run\.json$/, () => 'check_run'],
  [/^deployment/, () => 'deployment'],
  [/^status\.json$/, () => 'status'],
  [/^merge_group_/, () => 'merge_group'],
  [/^pipeline_hook\.json$/, () => 'workflow_run'],
];

/** The event header a fixture file was sent with, or `undefined` when the README's table does not cover it. */
export function eventNameOf(file: string): string | undefined {
  for (const [re, name] of EVENT_RULES) {
    const m = file.match(re);
    if (m) return name(m);
  }
  return undefined;
}
