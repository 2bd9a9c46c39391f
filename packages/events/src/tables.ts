// The extractor tables: data, one per scheme (seed 004: "The extractor table is data: a slice of
// {field, jsonPaths []string, validate func} per scheme"). Adding a scheme is one table and a fixture.
import {
  type Check,
  checkAction,
  checkActor,
  checkMetaValue,
  checkName,
  checkNumber,
  checkRepo,
  checkSha,
  checkUrl,
} from './patterns';

/** The schemes with an extractor table. `switchboard` and `cairn` wait for their payload contracts. */
export type Scheme = 'github' | 'gitea' | 'forgejo';

/** The typed fields a table may fill (besides `meta.<key>`). */
export type TypedField = 'name' | 'action' | 'repo' | 'number' | 'url' | 'sha' | 'actor';

/** The free-text fields: extracted, never validated, rendered only inside the untrusted fence. */
export type UntrustedField = 'title' | 'body' | 'comment' | 'ref' | 'content';

/** The free-text field names, in table order. */
export const UNTRUSTED_FIELDS: readonly UntrustedField[] = ['title', 'body', 'comment', 'ref', 'content'];

/**
 * One typed row: where the value comes from and the rule it must pass.
 *
 * `source: 'event'` reads the delivery's event name (the forge sends it in a header, not the body);
 * `source: 'body'` tries `jsonPaths` in order. The first path holding a value other than `null` wins
 * and is validated; if that value fails, the field is dropped — a later path is never tried, so a
 * failing value is never replaced by a guess from elsewhere in the payload.
 */
export interface TypedRow {
  readonly field: TypedField | `meta.${string}`;
  readonly source: 'event' | 'body';
  readonly jsonPaths: readonly string[];
  /** Validates the value; `body` is the whole payload (the url rule reads the repository's host). */
  readonly validate: (value: unknown, body: unknown) => Check<string | number>;
}

/** One free-text row: the first path holding a value other than `null` supplies it; it must be a string. */
export interface UntrustedRow {
  readonly field: UntrustedField;
  readonly jsonPaths: readonly string[];
}

/** The extractor table of one scheme. */
export interface ExtractorTable {
  readonly scheme: string;
  readonly typed: readonly TypedRow[];
  readonly untrusted: readonly UntrustedRow[];
}

/**
 * Reads a dotted path from a JSON value through own properties of plain objects only.
 * Returns `undefined` for anything missing. May throw only for exotic objects (getters, proxies).
 */
export function readPath(body: unknown, path: string): unknown {
  let current: unknown = body;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** The repository's web address, whose host a `url` must share (TM-59). */
function repositoryUrl(body: unknown): unknown {
  return readPath(body, 'repository.html_url') ?? readPath(body, 'repository.web_url');
}

const url = (value: unknown, body: unknown) => checkUrl(value, repositoryUrl(body));
const ownerName = (value: unknown) => checkRepo(value, 2);

const githubTable: ExtractorTable = {
  scheme: 'github',
  typed: [
    { field: 'name', source: 'event', jsonPaths: [], validate: checkName },
    { field: 'action', source: 'body', jsonPaths: ['action'], validate: checkAction },
    { field: 'repo', source: 'body', jsonPaths: ['repository.full_name'], validate: ownerName },
    {
      field: 'number',
      source: 'body',
      jsonPaths: ['pull_request.number', 'issue.number', 'number'],
      validate: checkNumber,
    },
    {
      field: 'url',
      source: 'body',
      jsonPaths: ['pull_request.html_url', 'issue.html_url', 'release.html_url'],
      validate: url,
    },
    {
      field: 'sha',
      source: 'body',
      jsonPaths: [
        'pull_request.head.sha',
        'check_run.head_sha',
        'merge_group.head_sha',
        'workflow_run.head_sha',
        'deployment.sha',
        'after',
        'sha',
      ],
      validate: checkSha,
    },
    { field: 'actor', source: 'body', jsonPaths: ['sender.login'], validate: checkActor },
    { field: 'meta.ref_type', source: 'body', jsonPaths: ['ref_type'], validate: checkMetaValue },
    {
      field: 'meta.state',
      source: 'body',
      jsonPaths: ['pull_request.state', 'issue.state', 'state'],
      validate: checkMetaValue,
    },
    { field: 'meta.review_state', source: 'body', jsonPaths: ['review.state'], validate: checkMetaValue },
    {
      field: 'meta.conclusion',
      source: 'body',
      jsonPaths: ['check_run.conclusion', 'workflow_run.conclusion'],
      validate: checkMetaValue,
    },
    {
      field: 'meta.environment',
      source: 'body',
      jsonPaths: ['deployment.environment'],
      validate: checkMetaValue,
    },
  ],
  untrusted: [
    { field: 'title', jsonPaths: ['pull_request.title', 'issue.title', 'release.name'] },
    { field: 'body', jsonPaths: ['pull_request.body', 'issue.body', 'release.body'] },
    { field: 'comment', jsonPaths: ['comment.body', 'review.body'] },
    { field: 'ref', jsonPaths: ['pull_request.head.ref', 'ref'] },
    { field: 'content', jsonPaths: ['head_commit.message'] },
  ],
};

// Gitea and Forgejo (a Gitea fork) send the same payload shapes; each keeps its own table so one can
// change without the other.
function giteaFamily(scheme: 'gitea' | 'forgejo'): ExtractorTable {
  return {
    scheme,
    typed: [
      { field: 'name', source: 'event', jsonPaths: [], validate: checkName },
      { field: 'action', source: 'body', jsonPaths: ['action'], validate: checkAction },
      // Forgejo repositories are `owner/name` exactly as Gitea's are (TM-51's open question).
      { field: 'repo', source: 'body', jsonPaths: ['repository.full_name'], validate: ownerName },
      {
        field: 'number',
        source: 'body',
        jsonPaths: ['pull_request.number', 'issue.number', 'number'],
        validate: checkNumber,
      },
      {
        field: 'url',
        source: 'body',
        jsonPaths: ['pull_request.html_url', 'issue.html_url', 'release.html_url'],
        validate: url,
      },
      {
        field: 'sha',
        source: 'body',
        jsonPaths: ['pull_request.head.sha', 'after', 'sha'],
        validate: checkSha,
      },
      {
        field: 'actor',
        source: 'body',
        jsonPaths: ['sender.login', 'sender.username'],
        validate: checkActor,
      },
      { field: 'meta.ref_type', source: 'body', jsonPaths: ['ref_type'], validate: checkMetaValue },
      {
        field: 'meta.state',
        source: 'body',
        jsonPaths: ['pull_request.state', 'issue.state'],
        validate: checkMetaValue,
      },
      { field: 'meta.review_state', source: 'body', jsonPaths: ['review.type'], validate: checkMetaValue },
    ],
    untrusted: [
      { field: 'title', jsonPaths: ['pull_request.title', 'issue.title', 'release.name'] },
      { field: 'body', jsonPaths: ['pull_request.body', 'issue.body', 'release.body'] },
      { field: 'comment', jsonPaths: ['comment.body', 'review.content'] },
      { field: 'ref', jsonPaths: ['pull_request.head.ref', 'ref'] },
      { field: 'content', jsonPaths: ['head_commit.message'] },
    ],
  };
}

/** The extractor table of each supported scheme. */
export const extractorTables: Readonly<Record<Scheme, ExtractorTable>> = {
  github: githubTable,
  gitea: giteaFamily('gitea'),
  forgejo: giteaFamily('forgejo'),
};

/** Whether `scheme` has an extractor table. */
export function isScheme(scheme: unknown): scheme is Scheme {
  return scheme === 'github' || scheme === 'gitea' || scheme === 'forgejo';
}
