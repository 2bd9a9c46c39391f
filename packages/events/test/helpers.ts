// Maps each captured webhook fixture to the event name its forge would have sent in the header
// (fixtures/webhooks/README.md). A fixture that no rule maps makes the fixture tests fail.
import { type WebhookFixture, webhookFixtures } from '@harness/test-utils';

const RULES: ReadonlyArray<readonly [RegExp, (m: RegExpMatchArray) => string]> = [
  [/^pr_review_/, () => 'pull_request_review'],
  [/^(issue_comment_|pull_request_comment_)|^comment\.json$/, () => 'issue_comment'],
  [/^(pr_|pull_request_|HookPullRequest)/, () => 'pull_request'],
  [/^(push|HookPush)/, () => 'push'],
  [/^(branch|tag)_(create|delete)\.json$/, (m) => m[2]!],
  [/^HookTag\.json$/, () => 'create'],
  [/^issues_/, () => 'issues'],
  [/^(release_|HookRelease)/, () => 'release'],
  [/^check_run\.json$/, () => 'check_run'],
  [/^deployment/, () => 'deployment'],
  [/^status\.json$/, () => 'status'],
  [/^merge_group_/, () => 'merge_group'],
  [/^pipeline_hook\.json$/, () => 'workflow_run'],
];

/** The event name of a fixture file, or `undefined` when the README's table does not cover it. */
export function eventNameOf(file: string): string | undefined {
  for (const [re, name] of RULES) {
    const m = file.match(re);
    if (m) return name(m);
  }
  return undefined;
}

export interface MappedFixture extends WebhookFixture {
  event: string | undefined;
}

/** Every fixture with its event name. */
export function fixtures(): MappedFixture[] {
  return webhookFixtures().map((f) => ({ ...f, event: eventNameOf(f.file) }));
}

/** Reads a dotted path of a JSON value (test-side, independent of the package's reader). */
export function at(body: unknown, path: string): unknown {
  let cur: unknown = body;
  for (const k of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** Every string and number inside a value (deep). */
export function leaves(value: unknown, out: unknown[] = []): unknown[] {
  if (typeof value === 'string' || typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const v of value) leaves(v, out);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) leaves(v, out);
  return out;
}
