import { eventNameOf } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { buildEnvelope, extract, extractorTables } from '../src/index';
import { at, fixtures, leaves } from './helpers';

const all = fixtures();

describe('extractors run against real captured deliveries, one set per scheme [TM-46]', () => {
  it('has fixtures for every scheme with a table [TM-46]', () => {
    for (const scheme of Object.keys(extractorTables)) {
      expect(all.filter((f) => f.scheme === scheme).length, scheme).toBeGreaterThan(5);
    }
  });

  it.each(all.map((f) => [`${f.scheme}/${f.file}`, f] as const))(
    'maps %s to an event name [TM-46]',
    (_, f) => {
      expect(f.event, `no event-name rule for ${f.scheme}/${f.file}; extend test/helpers.ts`).toBeDefined();
    },
  );

  it('fails on a fixture it does not map', () => {
    expect(eventNameOf('gitlab_merge_request.json')).toBeUndefined();
  });

  it.each(all.map((f) => [`${f.scheme}/${f.file}`, f] as const))('TM-46: extracts %s', (_, f) => {
    const { typed, dropped } = extract({ scheme: f.scheme, event: f.event, body: f.body, trustedActors: [] });
    expect(typed.name).toBe(f.event);
    const fullName = at(f.body, 'repository.full_name');
    if (typeof fullName === 'string') expect(typed.repo).toBe(fullName);
    // Nothing a real forge sends fails a rule except an http:// forge's url, and untrusted senders.
    for (const d of dropped) expect(['url_https', 'actor_not_trusted']).toContain(d.rule);
  });
});

const pullRequests = all.filter((f) => f.event === 'pull_request');

describe('pull-request deliveries: repo, number, url, sha, action against the body', () => {
  it('covers every scheme', () => {
    expect(new Set(pullRequests.map((f) => f.scheme))).toEqual(new Set(['github', 'gitea', 'forgejo']));
  });

  it.each(pullRequests.map((f) => [`${f.scheme}/${f.file}`, f] as const))('%s', (_, f) => {
    const { typed, dropped } = extract({ scheme: f.scheme, event: 'pull_request', body: f.body });
    expect(typed.action).toBe(at(f.body, 'action'));
    expect(typed.repo).toBe(at(f.body, 'repository.full_name'));
    expect(typed.number).toBe(at(f.body, 'pull_request.number') ?? at(f.body, 'number'));
    expect(typed.sha).toBe(at(f.body, 'pull_request.head.sha'));
    const url = at(f.body, 'pull_request.html_url') as string;
    if (url.startsWith('https://')) {
      expect(typed.url).toBe(url);
    } else {
      expect(typed.url).toBeUndefined();
      expect(dropped).toContainEqual({ field: 'url', rule: 'url_https', path: 'pull_request.html_url' });
    }
  });
});

describe("a body's secret field is never copied", () => {
  const withSecret = all.filter(
    (f) => typeof at(f.body, 'secret') === 'string' && at(f.body, 'secret') !== '',
  );

  it('has fixtures carrying a secret', () => {
    expect(withSecret.length).toBeGreaterThan(0);
  });

  it.each(withSecret.map((f) => [`${f.scheme}/${f.file}`, f] as const))(
    'keeps the secret of %s out of typed, untrusted, dropped and the envelope',
    (_, f) => {
      const secret = at(f.body, 'secret') as string;
      const extraction = extract({
        scheme: f.scheme,
        event: f.event,
        body: f.body,
        trustedActors: ['gordon'],
      });
      for (const part of [extraction.typed, extraction.untrusted, extraction.dropped]) {
        expect(leaves(part)).not.toContain(secret);
        expect(JSON.stringify(part)).not.toContain(secret);
      }
      const { envelope } = buildEnvelope({
        source: `webhook.${f.scheme}`,
        scheme: f.scheme,
        event: f.event ?? 'push',
        delivery: 'd-1',
        body: f.body,
      });
      expect(JSON.stringify(envelope.typed)).not.toContain(secret);
      // The stored body drops the top-level secret too: the run must not receive the webhook secret.
      expect(JSON.stringify(envelope)).not.toContain(secret);
      expect(Object.hasOwn(envelope.webhook.body as object, 'secret')).toBe(false);
    },
  );
});
