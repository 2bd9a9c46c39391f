import { describe, expect, it } from 'vitest';
import { buildEnvelope, checkTrustedActors, extract } from '../src/index';
import { fixtures } from './helpers';

const pr = fixtures().find((f) => f.scheme === 'gitea' && f.file === 'pull_request_opened.json')!;

describe('trusted_actors is set per webhook source [TM-66]', () => {
  it('the same delivery yields an actor for one source and none for another [TM-66]', () => {
    const sources = {
      'webhook.gitea-pr': ['jcitizen'],
      'webhook.gitea-other': ['someone-else'],
    } as const;
    const actors = Object.entries(sources).map(
      ([source, trustedActors]) =>
        buildEnvelope({ source, scheme: 'gitea', event: 'pull_request', body: pr.body, trustedActors })
          .envelope.typed.actor,
    );
    expect(actors).toEqual(['jcitizen', undefined]);
  });
});

describe('event.actor is present only for a trusted actor [TM-67]', () => {
  it('present when the sender is trusted [TM-67]', () => {
    expect(
      extract({ scheme: 'gitea', event: 'pull_request', body: pr.body, trustedActors: ['jcitizen'] }).typed
        .actor,
    ).toBe('jcitizen');
  });
  it.each([[[]], [undefined], [['other']]])('absent with trusted actors %j [TM-67]', (trustedActors) => {
    const r = extract({ scheme: 'gitea', event: 'pull_request', body: pr.body, trustedActors });
    expect(r.typed.actor).toBeUndefined();
    expect(r.dropped).toContainEqual({ field: 'actor', rule: 'actor_not_trusted', path: 'sender.login' });
  });
  it('an untrusted sender changes nothing else [TM-67]', () => {
    const trusted = extract({
      scheme: 'gitea',
      event: 'pull_request',
      body: pr.body,
      trustedActors: ['jcitizen'],
    });
    const untrusted = extract({ scheme: 'gitea', event: 'pull_request', body: pr.body });
    const { actor, ...rest } = trusted.typed;
    expect(untrusted.typed).toEqual(rest);
  });
});

describe('the trusted_actors match is case-insensitive [TM-68]', () => {
  it.each([['JCITIZEN'], ['JCitizen'], ['jcitizen']])('%s matches jcitizen [TM-68]', (entry) => {
    expect(
      extract({ scheme: 'gitea', event: 'pull_request', body: pr.body, trustedActors: [entry] }).typed.actor,
    ).toBe('jcitizen');
  });
  it('keeps the spelling of the payload [TM-68]', () => {
    const body = { sender: { login: 'OctoCat' } };
    expect(extract({ scheme: 'github', event: 'push', body, trustedActors: ['octocat'] }).typed.actor).toBe(
      'OctoCat',
    );
  });
});

describe('trusted_actors names users only; orgs and teams are never resolved [TM-69]', () => {
  it('an org or team entry fails config load (decision: a load error, not a silent non-match) [TM-69]', () => {
    const r = checkTrustedActors(['alice', 'my-org/maintainers', '@my-org', 7]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => [i.code, i.index])).toEqual([
      ['not_a_user', 1],
      ['not_a_user', 2],
      ['not_a_user', 3],
    ]);
    expect(r.issues[0]?.message).toMatchInlineSnapshot(
      `"trusted_actors[1] names an org or team: expected a user name matching ^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$; orgs and teams are never resolved, so list each user."`,
    );
  });
  it('a list of user names passes [TM-69]', () => {
    expect(checkTrustedActors(['alice', 'Bob-2'])).toEqual({ ok: true, value: ['alice', 'Bob-2'] });
  });
  it('at extraction an org/team entry never matches, even a member of that org [TM-69]', () => {
    const body = { sender: { login: 'jcitizen' }, organization: { login: 'my-org' } };
    for (const entry of ['my-org', 'my-org/jcitizen', '@jcitizen']) {
      const actor = extract({ scheme: 'github', event: 'push', body, trustedActors: [entry] }).typed.actor;
      expect(actor, entry).toBeUndefined();
    }
  });
});
