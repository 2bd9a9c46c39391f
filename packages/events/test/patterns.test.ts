import { describe, expect, it } from 'vitest';
import {
  checkAction,
  checkActor,
  checkMetaKey,
  checkMetaValue,
  checkName,
  checkNumber,
  checkRepo,
  checkSha,
  checkUrl,
  eventIdFor,
  extract,
  extractWith,
  isEventId,
} from '../src/index';

const REPO_URL = 'https://github.com/octo/hello';
const prBody = (patch: Record<string, unknown>) => ({
  action: 'opened',
  number: 7,
  repository: { full_name: 'octo/hello', html_url: REPO_URL },
  ...patch,
});

describe('name must match ^[a-z][a-z_]{0,63}$ [TM-48]', () => {
  it.each(['push', 'pull_request', 'a', `a${'_'.repeat(63)}`])('TM-48: accepts %j', (v) => {
    expect(checkName(v)).toEqual({ ok: true, value: v });
  });
  it.each(['Push', '_push', '-push', 'push-x', 'push1', '', `a${'b'.repeat(64)}`, 'pull request', 7])(
    'rejects %j [TM-48]',
    (v) => {
      expect(checkName(v)).toEqual({ ok: false, rule: 'name_pattern' });
    },
  );
  it('drops an invalid event header from typed [TM-48]', () => {
    const r = extract({ scheme: 'github', event: '--exec', body: {} });
    expect(r.typed.name).toBeUndefined();
    expect(r.dropped).toContainEqual({ field: 'name', rule: 'name_pattern', path: '(event)' });
  });
});

describe('action must match ^[a-z][a-z_]{0,63}$ [TM-49]', () => {
  it.each(['opened', 'ready_for_review', 'synchronized'])('accepts %j [TM-49]', (v) => {
    expect(checkAction(v).ok).toBe(true);
  });
  it.each(['Opened', '-opened', 'open ed', 'opened\n', '', 1, null])('rejects %j [TM-49]', (v) => {
    expect(checkAction(v)).toEqual({ ok: false, rule: 'action_pattern' });
  });
  it('drops a failing action in extraction [TM-49]', () => {
    const r = extract({ scheme: 'gitea', event: 'issues', body: prBody({ action: 'rm -rf' }) });
    expect(r.typed.action).toBeUndefined();
    expect(r.dropped).toContainEqual({ field: 'action', rule: 'action_pattern', path: 'action' });
  });
});

describe('repo must match the repository path pattern [TM-50]', () => {
  it.each(['a/b', 'stump.wtf/harness', 'Org_1/repo-name.js', 'group/sub/project'])(
    'accepts %j [TM-50]',
    (v) => {
      expect(checkRepo(v).ok).toBe(true);
    },
  );
  it.each([
    'single',
    '-a/b',
    'a/-b',
    'a//b',
    'a/b/',
    '/a/b',
    'a/b c',
    '../etc',
    `${'a'.repeat(101)}/b`,
    Array.from({ length: 21 }, () => 'a').join('/'),
    42,
  ])('TM-50: rejects %j', (v) => {
    expect(checkRepo(v)).toEqual({ ok: false, rule: 'repo_pattern' });
  });
  it('accepts 20 segments and 100-character segments [TM-50]', () => {
    expect(checkRepo(Array.from({ length: 20 }, () => 'a').join('/')).ok).toBe(true);
    expect(checkRepo(`${'a'.repeat(100)}/${'b'.repeat(100)}`).ok).toBe(true);
  });
});

describe('repo has exactly 2 segments for github, gitea (and forgejo) [TM-51]', () => {
  it.each(['github', 'gitea', 'forgejo'] as const)('%s drops a three-segment repo [TM-51]', (scheme) => {
    const body = prBody({ repository: { full_name: 'group/sub/project', html_url: REPO_URL } });
    const r = extract({ scheme, event: 'push', body });
    expect(r.typed.repo).toBeUndefined();
    expect(r.dropped).toContainEqual({ field: 'repo', rule: 'repo_segments', path: 'repository.full_name' });
  });
  it('checkRepo enforces a segment count when asked [TM-51]', () => {
    expect(checkRepo('a/b', 2).ok).toBe(true);
    expect(checkRepo('a/b/c', 2)).toEqual({ ok: false, rule: 'repo_segments' });
  });
});

describe('number must be a JSON number, never a string [TM-52]', () => {
  it.each(['412', '1', '', true, null, {}, [1]])('rejects %j [TM-52]', (v) => {
    expect(checkNumber(v)).toEqual({ ok: false, rule: 'number_type' });
  });
  it.each([Number.NaN, Number.POSITIVE_INFINITY])('rejects the non-finite %s [TM-52]', (v) => {
    expect(checkNumber(v)).toEqual({ ok: false, rule: 'number_type' });
  });
  it('drops "412" from a body [TM-52]', () => {
    const r = extract({ scheme: 'github', event: 'issues', body: prBody({ number: '412' }) });
    expect(r.typed.number).toBeUndefined();
    expect(r.dropped).toContainEqual({ field: 'number', rule: 'number_type', path: 'number' });
  });
});

describe('number must have no fraction [TM-53]', () => {
  it('rejects 412.5 [TM-53]', () => {
    expect(checkNumber(412.5)).toEqual({ ok: false, rule: 'number_fraction' });
  });
  it('accepts 412.0, which JSON.parse yields as the number 412 (decision, docs/events.md) [TM-53]', () => {
    const body = JSON.parse('{"number": 412.0}');
    expect(checkNumber(body.number)).toEqual({ ok: true, value: 412 });
  });
});

describe('number must satisfy 1 ≤ n ≤ 2147483647 [TM-54]', () => {
  it.each([1, 412, 2147483647])('accepts %d [TM-54]', (v) => {
    expect(checkNumber(v)).toEqual({ ok: true, value: v });
  });
  it.each([0, -1, -412, 2147483648, Number.MAX_SAFE_INTEGER])('rejects %d [TM-54]', (v) => {
    expect(checkNumber(v)).toEqual({ ok: false, rule: 'number_range' });
  });
});

describe('url [TM-55..TM-59]', () => {
  it('accepts an https url on the repository host', () => {
    expect(checkUrl(`${REPO_URL}/pull/1`, REPO_URL)).toEqual({ ok: true, value: `${REPO_URL}/pull/1` });
  });
  it('url must parse as a URL [TM-55]', () => {
    expect(checkUrl('https://', REPO_URL)).toEqual({ ok: false, rule: 'url_parse' });
    expect(checkUrl('not a url'.replace(/ /g, ''), REPO_URL)).toEqual({ ok: false, rule: 'url_parse' });
    expect(checkUrl(42, REPO_URL)).toEqual({ ok: false, rule: 'url_type' });
  });
  it('url must have scheme https [TM-56]', () => {
    for (const u of [
      'http://github.com/a',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'ftp://github.com/',
    ]) {
      expect(checkUrl(u, REPO_URL)).toEqual({ ok: false, rule: 'url_https' });
    }
  });
  it('url must be at most 2048 bytes (UTF-8, as Go counts) [TM-57]', () => {
    const base = `${REPO_URL}/`;
    const exact = base + 'a'.repeat(2048 - base.length);
    expect(checkUrl(exact, REPO_URL).ok).toBe(true);
    expect(checkUrl(`${exact}a`, REPO_URL)).toEqual({ ok: false, rule: 'url_length' });
    // 2047 ASCII bytes plus one two-byte character: 2048 UTF-16 units would pass, 2049 bytes must not.
    const multi = `${base + 'a'.repeat(2047 - base.length)}é`;
    expect(multi.length).toBe(2048);
    expect(checkUrl(multi, REPO_URL)).toEqual({ ok: false, rule: 'url_length' });
  });
  it('url must contain no byte in [\\x00-\\x20\\x7f] [TM-58]', () => {
    for (const c of ['\x00', '\t', '\n', '\r', ' ', '\x1f', '\x7f']) {
      expect(checkUrl(`${REPO_URL}/pull/1${c}x`, REPO_URL)).toEqual({ ok: false, rule: 'url_control' });
    }
  });
  it("url's host must equal the repository html_url/web_url host [TM-59]", () => {
    expect(checkUrl('https://evil.example/octo/hello/pull/1', REPO_URL)).toEqual({
      ok: false,
      rule: 'url_host',
    });
    expect(checkUrl('https://github.com:8443/octo/hello', REPO_URL)).toEqual({ ok: false, rule: 'url_host' });
    expect(checkUrl(`${REPO_URL}/pull/1`, undefined)).toEqual({ ok: false, rule: 'url_host' });
    // A backslash means a path separator to WHATWG; the stored value is the serialisation, host github.com.
    expect(checkUrl('https://github.com\\@evil.example/x', REPO_URL)).toEqual({
      ok: true,
      value: 'https://github.com/@evil.example/x',
    });
  });
  it('reads web_url when html_url is absent [TM-59]', () => {
    const body = {
      pull_request: { html_url: 'https://git.example/a/b/pulls/1' },
      repository: { web_url: 'https://git.example/a/b' },
    };
    expect(extract({ scheme: 'gitea', event: 'pull_request', body }).typed.url).toBe(
      'https://git.example/a/b/pulls/1',
    );
  });
  it('drops a url pointing off the repository host in extraction [TM-59]', () => {
    const body = prBody({ pull_request: { html_url: 'https://evil.example/octo/hello/pull/1' } });
    const r = extract({ scheme: 'github', event: 'pull_request', body });
    expect(r.typed.url).toBeUndefined();
    expect(r.dropped).toContainEqual({ field: 'url', rule: 'url_host', path: 'pull_request.html_url' });
  });
});

describe('sha must match ^[0-9a-f]{40}([0-9a-f]{24})?$ [TM-60]', () => {
  const h40 = 'a'.repeat(40);
  it.each([h40, '0123456789abcdef0123456789abcdef01234567', 'f'.repeat(64)])('TM-60: accepts %s', (v) => {
    expect(checkSha(v).ok).toBe(true);
  });
  it.each([
    'A'.repeat(40),
    'a'.repeat(39),
    'a'.repeat(41),
    'a'.repeat(63),
    'a'.repeat(65),
    `g${'a'.repeat(39)}`,
    1,
  ])('TM-60: rejects %j', (v) => {
    expect(checkSha(v)).toEqual({ ok: false, rule: 'sha_pattern' });
  });
});

describe('actor must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$ [TM-61]', () => {
  it.each(['alice', 'Alice-B', '6543', 'a.b_c', 'a'.repeat(40)])('TM-61: accepts %j', (v) => {
    expect(checkActor(v).ok).toBe(true);
  });
  it.each(['-alice', '.alice', 'al ice', 'org/team', '@org', 'a'.repeat(41), '', 5])(
    'rejects %j [TM-61]',
    (v) => {
      expect(checkActor(v)).toEqual({ ok: false, rule: 'actor_pattern' });
    },
  );
  it('a trusted list cannot let a malformed actor through [TM-61]', () => {
    const r = extract({
      scheme: 'github',
      event: 'push',
      body: { sender: { login: '-alice' } },
      trustedActors: ['-alice'],
    });
    expect(r.typed.actor).toBeUndefined();
    expect(r.dropped).toContainEqual({ field: 'actor', rule: 'actor_pattern', path: 'sender.login' });
  });
});

describe('a meta key must match ^[a-z][a-z0-9_]{0,31}$ [TM-62]', () => {
  it.each(['state', 'ref_type', 'k8s', `a${'b'.repeat(31)}`])('TM-62: accepts %j', (v) => {
    expect(checkMetaKey(v).ok).toBe(true);
  });
  it.each(['State', '_x', '1x', 'a-b', '__proto__', `a${'b'.repeat(32)}`, ''])('TM-62: rejects %j', (v) => {
    expect(checkMetaKey(v)).toEqual({ ok: false, rule: 'meta_key' });
  });
  it('a table row with a bad meta key yields no meta value [TM-62]', () => {
    const table = {
      scheme: 'test',
      typed: [
        {
          field: 'meta.Bad-Key' as const,
          source: 'body' as const,
          jsonPaths: ['x'],
          validate: checkMetaValue,
        },
      ],
      untrusted: [],
    };
    const r = extractWith(table, { event: 'push', body: { x: 'ok' } });
    expect(r.typed.meta).toBeUndefined();
    expect(r.dropped).toEqual([{ field: 'meta.Bad-Key', rule: 'meta_key' }]);
  });
});

describe('a meta value must be a JSON string matching ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$ [TM-63]', () => {
  it.each(['open', 'success', 'v1.2:3-x_y', 'a'.repeat(128)])('TM-63: accepts %j', (v) => {
    expect(checkMetaValue(v).ok).toBe(true);
  });
  it.each(['-open', 'has space', 'a/b', 'a'.repeat(129), '', 1, true, null, ['open']])(
    'rejects %j [TM-63]',
    (v) => {
      expect(checkMetaValue(v)).toEqual({ ok: false, rule: 'meta_value' });
    },
  );
  it('meta comes from the fixed table rows, e.g. the pull request state [TM-63]', () => {
    const r = extract({
      scheme: 'github',
      event: 'pull_request',
      body: prBody({ pull_request: { state: 'open' } }),
    });
    expect(r.typed.meta).toEqual({ state: 'open' });
    const bad = extract({
      scheme: 'github',
      event: 'pull_request',
      body: prBody({ pull_request: { state: 'o pen' } }),
    });
    expect(bad.typed.meta).toBeUndefined();
    expect(bad.dropped).toContainEqual({
      field: 'meta.state',
      rule: 'meta_value',
      path: 'pull_request.state',
    });
  });
});

describe('event.id must match ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$, else the daemon generates one [TM-64]', () => {
  it('keeps a valid delivery id [TM-64]', () => {
    expect(eventIdFor('7f1e-aa:bb.cc_dd')).toBe('7f1e-aa:bb.cc_dd');
    expect(eventIdFor('a'.repeat(128))).toBe('a'.repeat(128));
  });
  it.each(['-x', '', 'a b', 'a/b', 'a'.repeat(129), undefined, 7])('TM-64: generates one for %j', (v) => {
    const id = eventIdFor(v);
    expect(id).not.toBe(v);
    expect(isEventId(id)).toBe(true);
    expect(eventIdFor(v)).not.toBe(id);
  });
});
