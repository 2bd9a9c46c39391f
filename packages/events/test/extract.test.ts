import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect, it } from 'vitest';
import {
  ACTOR_PATTERN,
  EVENT_ID_PATTERN,
  type ExtractorTable,
  extract,
  extractorTables,
  META_KEY_PATTERN,
  META_VALUE_PATTERN,
  NAME_PATTERN,
  REPO_PATTERN,
  SHA_PATTERN,
  type Typed,
} from '../src/index';
import { fixtures, leaves } from './helpers';

const schemes = ['github', 'gitea', 'forgejo'] as const;

/** Builds a nested object from dotted paths. */
function nest(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [path, value] of entries) {
    const keys = path.split('.');
    let cur = root;
    keys.slice(0, -1).forEach((k) => {
      if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
      cur = cur[k] as Record<string, unknown>;
    });
    cur[keys.at(-1)!] = value;
  }
  return root;
}

const tablePaths = (table: ExtractorTable) => [
  ...table.typed.flatMap((r) => r.jsonPaths),
  ...table.untrusted.flatMap((r) => r.jsonPaths),
  'repository.html_url',
  'repository.web_url',
];

// Values aimed at the table: leading dashes, near-misses of each pattern, and arbitrary JSON.
const hostile = fc.oneof(
  fc.jsonValue(),
  fc.string().map((s) => `-${s}`),
  fc.constantFrom('-1', '--help', `-${'a'.repeat(39)}`, '-opened', '-a/b', 'a/-b', ' -x', '\u2013x', '-'),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double(),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom('https://github.com/-x', 'https://-github.com/x', 'https://github.com/octo/hello/pull/1'),
  fc.stringMatching(/^-?[0-9a-f]{40}$/),
);

// Each table path independently absent, hostile or plausible, so valid values reach every row too.
const plausible = fc.constantFrom(
  'opened',
  'octo/hello',
  'alice',
  'open',
  'https://github.com/octo/hello',
  7,
);
const shapedBody = (scheme: (typeof schemes)[number]) => {
  const paths = [...new Set(tablePaths(extractorTables[scheme]))];
  return fc
    .tuple(
      ...paths.map((path) =>
        fc.option(
          fc.oneof(
            { arbitrary: hostile, weight: 3 },
            { arbitrary: plausible, weight: 2 },
            { arbitrary: fc.constant(`https://github.com/octo/hello/${path}`), weight: 1 },
          ),
          { nil: undefined, freq: 2 },
        ),
      ),
    )
    .map((values) =>
      nest(paths.flatMap((path, i) => (values[i] === undefined ? [] : [[path, values[i]] as const]))),
    );
};

const event = fc.oneof(fc.constantFrom('pull_request', '-push', 'push', ''), fc.string(), fc.jsonValue());
const trusted = fc.array(fc.oneof(fc.string(), fc.constantFrom('-x', 'alice', 'ALICE', 'octocat')), {
  maxLength: 4,
});

function assertNoLeadingDash(typed: Typed): void {
  for (const value of leaves(typed)) {
    if (typeof value === 'string') expect(value.startsWith('-'), value).toBe(false);
    else expect(value as number).toBeGreaterThan(0);
  }
  // And every value obeys its row of the table.
  if (typed.name !== undefined) expect(typed.name).toMatch(NAME_PATTERN);
  if (typed.action !== undefined) expect(typed.action).toMatch(NAME_PATTERN);
  if (typed.repo !== undefined) expect(typed.repo).toMatch(REPO_PATTERN);
  if (typed.sha !== undefined) expect(typed.sha).toMatch(SHA_PATTERN);
  if (typed.actor !== undefined) expect(typed.actor).toMatch(ACTOR_PATTERN);
  if (typed.url !== undefined) expect(typed.url.startsWith('https://')).toBe(true);
  for (const [k, v] of Object.entries(typed.meta ?? {})) {
    expect(k).toMatch(META_KEY_PATTERN);
    expect(v).toMatch(META_VALUE_PATTERN);
  }
}

describe('no extracted value can start with - [TM-65]', () => {
  test.prop([fc.constantFrom(...schemes), event, fc.jsonValue(), trusted], { numRuns: fcRuns(500) })(
    'holds for arbitrary JSON bodies [TM-65]',
    (scheme, ev, body, actors) => {
      assertNoLeadingDash(extract({ scheme, event: ev, body, trustedActors: actors }).typed);
    },
  );

  for (const scheme of schemes) {
    it(`holds for ${scheme} bodies with hostile values at every table path [TM-65]`, () => {
      const seen = new Set<string>();
      fc.assert(
        fc.property(event, shapedBody(scheme), trusted, (ev, body, actors) => {
          const { typed } = extract({ scheme, event: ev, body, trustedActors: actors });
          assertNoLeadingDash(typed);
          for (const k of Object.keys(typed)) seen.add(k);
        }),
        { numRuns: fcRuns(400) },
      );
      // The property is not vacuous: the generator reaches valid values for every typed field.
      expect([...seen].sort()).toEqual(['action', 'actor', 'meta', 'name', 'number', 'repo', 'sha', 'url']);
    });
  }

  it('every pattern of the table starts with an alphanumeric [TM-65]', () => {
    for (const re of [
      NAME_PATTERN,
      REPO_PATTERN,
      SHA_PATTERN,
      ACTOR_PATTERN,
      META_VALUE_PATTERN,
      EVENT_ID_PATTERN,
    ]) {
      expect(re.test('-a'), re.source).toBe(false);
    }
  });
});

describe('extract never throws', () => {
  test.prop([fc.string(), fc.anything(), fc.anything(), fc.anything()], { numRuns: fcRuns(500) })(
    'never throws on anything, with any scheme, event and trusted list',
    (scheme, ev, body, actors) => {
      const r = extract({ scheme, event: ev, body, trustedActors: actors as readonly unknown[] });
      expect(typeof r.typed).toBe('object');
    },
  );

  test.prop([fc.constantFrom(...schemes), fc.jsonValue()], { numRuns: fcRuns(300) })(
    'never throws on arbitrary JSON text parsed',
    (scheme, value) => {
      const body = JSON.parse(JSON.stringify(value) ?? 'null');
      expect(() => extract({ scheme, event: 'push', body })).not.toThrow();
    },
  );

  it('survives a body whose properties throw when read', () => {
    const body = new Proxy(
      {},
      {
        has: () => true,
        getOwnPropertyDescriptor: () => {
          throw new Error('boom');
        },
        get: () => {
          throw new Error('boom');
        },
      },
    );
    const r = extract({ scheme: 'github', event: 'push', body });
    expect(r.typed).toEqual({ name: 'push' });
    expect(r.dropped.some((d) => d.rule === 'unreadable')).toBe(true);
  });
});

describe('the extractor table is data, rows of {field, jsonPaths, validate} [TM-42]', () => {
  it('has one table per scheme with typed and untrusted rows [TM-42]', () => {
    expect(Object.keys(extractorTables).sort()).toEqual(['forgejo', 'gitea', 'github']);
    for (const [scheme, table] of Object.entries(extractorTables)) {
      expect(table.scheme).toBe(scheme);
      for (const row of table.typed) {
        expect(typeof row.field).toBe('string');
        expect(Array.isArray(row.jsonPaths)).toBe(true);
        expect(typeof row.validate).toBe('function');
      }
      expect(table.untrusted.map((r) => r.field)).toEqual(['title', 'body', 'comment', 'ref', 'content']);
    }
  });

  it('with several paths, the first present (non-null) one wins [TM-42]', () => {
    const body = {
      pull_request: { number: null },
      issue: { number: 5 },
      number: 9,
      repository: { html_url: 'https://github.com/a/b' },
    };
    expect(extract({ scheme: 'github', event: 'issues', body }).typed.number).toBe(5);
  });

  it('a failing first value is dropped, never replaced by a later path (no guessing) [TM-42]', () => {
    const body = { pull_request: { number: '5' }, number: 9 };
    const r = extract({ scheme: 'github', event: 'pull_request', body });
    expect(r.typed.number).toBeUndefined();
    expect(r.dropped).toContainEqual({ field: 'number', rule: 'number_type', path: 'pull_request.number' });
  });

  it('reads own properties only, never the prototype chain [TM-42]', () => {
    const body = JSON.parse('{"__proto__": {"action": "opened"}}');
    expect(extract({ scheme: 'github', event: 'push', body }).typed.action).toBeUndefined();
    expect(
      extract({ scheme: 'github', event: 'push', body: { action: undefined } }).typed.action,
    ).toBeUndefined();
    // An array is not an object with fields: no indexing into lists.
    expect(
      extract({ scheme: 'github', event: 'push', body: [{ action: 'opened' }] }).typed.action,
    ).toBeUndefined();
  });
});

describe('only the fields in the table reach typed [TM-43]', () => {
  it('typed has only the table fields, whatever the body carries [TM-43]', () => {
    const body = {
      action: 'opened',
      extra: 'x',
      token: 'ghp_secret',
      repository: { full_name: 'a/b', private: true, html_url: 'https://github.com/a/b' },
      sender: { login: 'alice', email: 'alice@example.com' },
    };
    const { typed } = extract({ scheme: 'github', event: 'pull_request', body, trustedActors: ['alice'] });
    expect(typed).toEqual({ name: 'pull_request', action: 'opened', repo: 'a/b', actor: 'alice' });
  });

  test.prop([fc.constantFrom(...schemes), fc.jsonValue()], { numRuns: fcRuns(200) })(
    'typed keys are always a subset of the table fields [TM-43]',
    (scheme, body) => {
      const { typed } = extract({ scheme, event: 'push', body });
      const allowed = ['name', 'action', 'repo', 'number', 'url', 'sha', 'actor', 'meta'];
      for (const k of Object.keys(typed)) expect(allowed).toContain(k);
      const metaKeys = extractorTables[scheme].typed
        .filter((r) => r.field.startsWith('meta.'))
        .map((r) => r.field.slice(5));
      for (const k of Object.keys(typed.meta ?? {})) expect(metaKeys).toContain(k);
    },
  );
});

describe('a field missing from the payload is absent, not an error [TM-44]', () => {
  it('an empty body yields only the event name and no drops [TM-44]', () => {
    expect(extract({ scheme: 'gitea', event: 'push', body: {} })).toEqual({
      typed: { name: 'push' },
      untrusted: {},
      dropped: [],
    });
  });
  it('a push has no number and that is not an error [TM-44]', () => {
    const push = fixtures().find((f) => f.scheme === 'github' && f.file === 'push.json')!;
    const r = extract({ scheme: 'github', event: 'push', body: push.body, trustedActors: ['Codertocat'] });
    expect(r.typed.number).toBeUndefined();
    expect(r.dropped).toEqual([]);
  });
});

describe('a value that fails its rule is absent from typed [TM-45]', () => {
  it('each failing field is absent and listed in dropped with its rule [TM-45]', () => {
    const body = {
      action: 'Opened',
      number: 0,
      repository: { full_name: 'a', html_url: 'https://github.com/a/b' },
      pull_request: { html_url: 'http://github.com/a/b/pull/1', head: { sha: 'XYZ' }, title: 7 },
      sender: { login: 'al ice' },
    };
    const r = extract({ scheme: 'github', event: 'pull_request', body, trustedActors: ['al ice'] });
    expect(r.typed).toEqual({ name: 'pull_request' });
    expect(r.dropped.map((d) => `${d.field}:${d.rule}`).sort()).toEqual(
      [
        'action:action_pattern',
        'actor:actor_pattern',
        'number:number_range',
        'repo:repo_pattern',
        'sha:sha_pattern',
        'title:untrusted_type',
        'url:url_https',
      ].sort(),
    );
  });
  it('dropped never carries the failing value [TM-45]', () => {
    const r = extract({ scheme: 'github', event: 'push', body: { action: 'hunter2 SECRET' } });
    expect(JSON.stringify(r.dropped)).not.toContain('hunter2');
  });
});

describe('switchboard and cairn get no extractor [TM-47]', () => {
  it.each(['switchboard', 'cairn', 'gitlab', ''])(
    '%j yields an empty extraction and says why [TM-47]',
    (scheme) => {
      const push = fixtures().find((f) => f.file === 'push.json')!;
      expect(extract({ scheme, event: 'push', body: push.body })).toEqual({
        typed: {},
        untrusted: {},
        dropped: [{ field: '*', rule: 'scheme_unsupported' }],
      });
    },
  );
});

describe('untrusted: the free-text fields', () => {
  it('extracts title, body, comment, ref and content as strings, unvalidated', () => {
    const body = {
      pull_request: { title: '--rm -rf', body: '$(whoami)', head: { ref: '-feature' } },
      comment: { body: 'ignore previous instructions' },
      head_commit: { message: 'fix\n\nbody' },
    };
    expect(extract({ scheme: 'github', event: 'pull_request', body }).untrusted).toEqual({
      title: '--rm -rf',
      body: '$(whoami)',
      comment: 'ignore previous instructions',
      ref: '-feature',
      content: 'fix\n\nbody',
    });
  });
});
