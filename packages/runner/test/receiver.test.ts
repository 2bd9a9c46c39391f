// The webhook receiver over real HTTP: every captured delivery in fixtures/webhooks/, signed by the
// test, reaches a real receiver; the FAKE agent records what each run got.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { extract } from '@harness/events';
import { eventNameOf, repoRoot, tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signBody } from '../src/signature';
import { Supervisor } from '../src/supervisor';
import { fakeAgents, mustLoad } from './helpers';

const SECRETS = { GH: 'gh-secret-1', GT: 'gitea-secret-2', FJ: 'forgejo-secret-3' };
const HEADERS = {
  github: { event: 'x-github-event', delivery: 'x-github-delivery', sig: 'x-hub-signature-256' },
  gitea: { event: 'x-gitea-event', delivery: 'x-gitea-delivery', sig: 'x-gitea-signature' },
  forgejo: { event: 'x-forgejo-event', delivery: 'x-forgejo-delivery', sig: 'x-forgejo-signature' },
} as const;
type Scheme = keyof typeof HEADERS;
const SOURCE_OF: Record<Scheme, string> = { github: 'gh', gitea: 'gt', forgejo: 'fj' };
const SECRET_OF: Record<Scheme, string> = { github: SECRETS.GH, gitea: SECRETS.GT, forgejo: SECRETS.FJ };

let fakes: ReturnType<typeof fakeAgents>;
let instance: ReturnType<typeof tempDir>;
let supervisor: Supervisor | undefined;

beforeEach(() => {
  fakes = fakeAgents();
  instance = tempDir('runner-instance-');
});
afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
  fakes.cleanup();
  instance.cleanup();
});

function fixtures() {
  const out: { scheme: Scheme; file: string; text: string; event: string }[] = [];
  for (const scheme of ['github', 'gitea', 'forgejo'] as const) {
    const dir = join(repoRoot, 'fixtures', 'webhooks', scheme);
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const event = eventNameOf(file);
      if (event === undefined) throw new Error(`fixture ${scheme}/${file} has no event rule`);
      out.push({ scheme, file, text: readFileSync(join(dir, file), 'utf8'), event });
    }
  }
  return out;
}

async function start(harnesses: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  const config = mustLoad({
    listen: '127.0.0.1:0',
    sources: [
      {
        id: 'gh',
        scheme: 'github',
        secret_env: 'GH',
        trusted_actors: ['octocat', 'baxterthehacker', 'Codertocat'],
      },
      { id: 'gt', scheme: 'gitea', secret_env: 'GT', trusted_actors: ['gitea'] },
      { id: 'fj', scheme: 'forgejo', secret_env: 'FJ' },
    ],
    harnesses: harnesses.map((h) => ({ workdir: fakes.dir, env: { FAKE_RECORD_DIR: fakes.records }, ...h })),
    ...extra,
  });
  supervisor = new Supervisor(config, {
    instanceDir: instance.path,
    env: { PATH: fakes.path, ...SECRETS },
    log: () => undefined,
  });
  const { url } = await supervisor.start();
  return url as string;
}

async function post(
  url: string,
  scheme: Scheme,
  event: string,
  body: string,
  options: { delivery?: string; secret?: string; signature?: string } = {},
) {
  const h = HEADERS[scheme];
  const headers: Record<string, string> = { 'content-type': 'application/json', [h.event]: event };
  if (options.delivery !== undefined) headers[h.delivery] = options.delivery;
  headers[h.sig] = options.signature ?? signBody(scheme, options.secret ?? SECRET_OF[scheme], body);
  const res = await fetch(`${url}/hooks/${SOURCE_OF[scheme]}`, { method: 'POST', headers, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const ALL_EVENTS = [
  'pull_request',
  'pull_request_review',
  'issue_comment',
  'push',
  'create',
  'delete',
  'issues',
  'release',
  'check_run',
  'deployment',
  'status',
  'merge_group',
  'workflow_run',
];

describe('the webhook receiver', () => {
  it('accepts every captured delivery, writes its envelope 0600 before the 202, and runs the harness with its typed values', async () => {
    const harnesses = (['gh', 'gt', 'fj'] as const).map((source) => ({
      id: `all-${source}`,
      kind: 'command',
      trigger: { source, events: ALL_EVENTS },
      argv: [
        join(fakes.bin, 'record'),
        '--',
        '{{event.name}}',
        '{{event.repo?}}',
        '{{event.number?}}',
        '{{event.actor?}}',
        '{{event.file}}',
      ],
    }));
    const url = await start(harnesses, { concurrency: 8 });
    const all = fixtures();
    expect(all.length).toBeGreaterThan(60);
    let n = 0;
    const sent: { f: (typeof all)[number]; delivery: string; runId: string }[] = [];
    for (const f of all) {
      const delivery = `d-${f.scheme}-${n++}`;
      const res = await post(url, f.scheme, f.event, f.text, { delivery });
      expect(res.status, f.file).toBe(202);
      sent.push({ f, delivery, runId: (res.json.runs as string[])[0] as string });
    }
    await supervisor?.idle();
    const trusted = { github: ['octocat', 'baxterthehacker', 'Codertocat'], gitea: ['gitea'], forgejo: [] };
    for (const { f, delivery, runId } of sent) {
      const eventFile = join(instance.path, 'runner', 'events', SOURCE_OF[f.scheme], `${delivery}.json`);
      expect(statSync(eventFile).mode & 0o777, f.file).toBe(0o600);
      const envelope = JSON.parse(readFileSync(eventFile, 'utf8'));
      const typed = extract({
        scheme: f.scheme,
        event: f.event,
        body: JSON.parse(f.text),
        trustedActors: trusted[f.scheme],
      }).typed;
      expect(envelope.typed, f.file).toEqual(typed);
      expect(JSON.stringify(envelope), f.file).not.toContain('"secret"');
      expect(supervisor?.store.get(runId)?.status, f.file).toBe('succeeded');
      const expected = [
        '--',
        f.event,
        typed.repo ?? '',
        String(typed.number ?? ''),
        typed.actor ?? '',
        eventFile,
      ];
      expect(fakes.read(runId).argv, f.file).toEqual(expected);
    }
  }, 120_000);

  it('runs the acceptance harness: argv and the stdin prompt byte for byte, fd 0 a pipe and fd 1 a terminal', async () => {
    const url = await start([
      {
        id: 'review',
        kind: 'command',
        trigger: { source: 'gh', events: ['pull_request'] },
        argv: [
          '/usr/bin/env',
          'node',
          join(fakes.bin, 'record'),
          '--',
          '{{event.repo}}',
          '{{event.number}}',
          '{{event.file}}',
        ],
        prompt_template:
          'Review pull request {{event.number}} of {{event.repo}}; the delivery is in {{event.file}}.',
        prompt_delivery: 'stdin',
      },
    ]);
    const body = readFileSync(join(repoRoot, 'fixtures', 'webhooks', 'github', 'pr_opened.json'), 'utf8');
    const res = await post(url, 'github', 'pull_request', body, { delivery: 'pr-opened-1' });
    expect(res.status).toBe(202);
    await supervisor?.idle();
    const runId = (res.json.runs as string[])[0] as string;
    const rec = fakes.read(runId);
    const parsed = JSON.parse(body);
    const file = join(instance.path, 'runner', 'events', 'gh', 'pr-opened-1.json');
    expect(rec.argv).toEqual(['--', parsed.repository.full_name, String(parsed.number), file]);
    expect(Buffer.from(rec.stdin, 'base64').toString()).toBe(
      `Review pull request ${parsed.number} of ${parsed.repository.full_name}; the delivery is in ${file}.`,
    );
    expect(rec.tty).toEqual({ 0: false, 1: true, 2: true });
    expect(rec.env.HARNESS_EVENT_FILE).toBe(file);
    expect(supervisor?.store.get(runId)).toMatchObject({
      status: 'succeeded',
      stdin_is_prompt: true,
      prompt_delivery: 'stdin',
      trigger: 'webhook',
      source: 'gh',
      delivery: 'pr-opened-1',
    });
  });

  it('answers 401 to a wrong signature and records nothing but an audit line', async () => {
    const url = await start([
      { id: 'h', kind: 'command', trigger: { source: 'gh', events: ['push'] }, argv: ['/bin/true'] },
    ]);
    const res = await post(url, 'github', 'push', '{"ref":"refs/heads/main"}', {
      delivery: 'bad-1',
      secret: 'wrong',
    });
    expect(res.status).toBe(401);
    const unsigned = await post(url, 'github', 'push', '{}', { delivery: 'bad-2', signature: 'sha1=abc' });
    expect(unsigned.status).toBe(401);
    expect(supervisor?.store.list()).toEqual([]);
    expect(readdirSync(join(instance.path, 'runner', 'events'))).toEqual([]);
    const audit = readFileSync(join(instance.path, 'runner', 'audit.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(audit.map((a) => [a.outcome, a.status, a.source])).toEqual([
      ['bad_signature', 401, 'gh'],
      ['bad_signature', 401, 'gh'],
    ]);
    expect(JSON.stringify(audit)).not.toContain(SECRETS.GH);
  });

  it('refuses a body over max_body with 413, by its declared length and while streaming', async () => {
    const url = await start(
      [{ id: 'h', kind: 'command', trigger: { source: 'gh', events: ['push'] }, argv: ['/bin/true'] }],
      { max_body: '1KiB' },
    );
    const big = JSON.stringify({ pad: 'x'.repeat(2000) });
    expect((await post(url, 'github', 'push', big, { delivery: 'big-1' })).status).toBe(413);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const res = await fetch(`${url}/hooks/gh`, {
      method: 'POST',
      headers: { 'x-github-event': 'push', 'x-hub-signature-256': signBody('github', SECRETS.GH, big) },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(supervisor?.store.list()).toEqual([]);
  });

  it('answers 400 to a signed body that is not JSON, and runs nothing', async () => {
    const url = await start([
      { id: 'h', kind: 'command', trigger: { source: 'gh', events: ['push'] }, argv: ['/bin/true'] },
    ]);
    const res = await post(url, 'github', 'push', 'payload=%7B%7D', { delivery: 'form-1' });
    expect(res.status).toBe(400);
    expect(res.json.error).toContain('not JSON');
    expect(supervisor?.store.list()).toEqual([]);
  });

  it('records a template_unresolved skip naming the path, and spawns nothing [TM-80] [TM-82]', async () => {
    const url = await start([
      {
        id: 'h',
        kind: 'command',
        trigger: { source: 'gh', events: ['push', 'pull_request'] },
        argv: [join(fakes.bin, 'record'), '{{event.number}}'],
      },
    ]);
    const body = readFileSync(join(repoRoot, 'fixtures', 'webhooks', 'github', 'push.json'), 'utf8');
    const res = await post(url, 'github', 'push', body, { delivery: 'push-1' });
    await supervisor?.idle();
    const runId = (res.json.runs as string[])[0] as string;
    expect(supervisor?.store.get(runId)).toMatchObject({
      status: 'skipped',
      reason: 'template_unresolved',
      path: 'event.number',
      exit_code: null,
    });
    expect(readdirSync(fakes.records)).toEqual([]);
  });

  it('runs only the harnesses whose events and actions match', async () => {
    const url = await start([
      {
        id: 'opened',
        kind: 'command',
        trigger: { source: 'gh', events: ['pull_request'], actions: ['opened'] },
        argv: ['/bin/true'],
      },
      {
        id: 'closed',
        kind: 'command',
        trigger: { source: 'gh', events: ['pull_request'], actions: ['closed'] },
        argv: ['/bin/true'],
      },
    ]);
    const body = readFileSync(join(repoRoot, 'fixtures', 'webhooks', 'github', 'pr_opened.json'), 'utf8');
    await post(url, 'github', 'pull_request', body, { delivery: 'pr-1' });
    await supervisor?.idle();
    expect(supervisor?.store.list().map((r) => [r.harness, r.status])).toEqual([['opened', 'succeeded']]);
  });
});

function fixture(scheme: Scheme, file: string): string {
  return readFileSync(join(repoRoot, 'fixtures', 'webhooks', scheme, file), 'utf8');
}

function auditLines(): Record<string, unknown>[] {
  return readFileSync(join(instance.path, 'runner', 'audit.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A harness that records each run it gets (the FAKE agent), on `events` of the scheme's source. */
function recorder(scheme: Scheme, events: string[], id = 'rec') {
  return {
    id,
    kind: 'command',
    trigger: { source: SOURCE_OF[scheme], events },
    argv: [join(fakes.bin, 'record'), '{{event.file}}'],
  };
}

const PUSH: Record<Scheme, string> = { github: 'push.json', gitea: 'push.json', forgejo: 'HookPush.json' };

describe('replayed deliveries: the signed body decides, never the unsigned delivery id', () => {
  it.each(['github', 'gitea', 'forgejo'] as const)(
    'starts one run for a signed %s body posted with five delivery ids, with none and with ../../etc/x; every replay answers 200 duplicate [SEC-18]',
    async (scheme) => {
      const url = await start([recorder(scheme, ['push'])]);
      const body = fixture(scheme, PUSH[scheme]);
      const ids = ['r-1', 'r-2', 'r-3', 'r-4', 'r-5', undefined, '../../etc/x'];
      const answers = [];
      for (const delivery of ids)
        answers.push(await post(url, scheme, 'push', body, delivery === undefined ? {} : { delivery }));
      await supervisor?.idle();

      const runs = supervisor?.store.list() ?? [];
      expect(runs.map((r) => [r.harness, r.status])).toEqual([['rec', 'succeeded']]);
      expect(answers[0]).toEqual({
        status: 202,
        json: { accepted: true, delivery: 'r-1', event_id: 'r-1', runs: [runs[0]?.id] },
      });
      expect(answers.slice(1)).toEqual(
        ids.slice(1).map((delivery) => ({
          status: 200,
          json: { duplicate: true, delivery: delivery ?? null, event_id: 'r-1' },
        })),
      );
      expect(readdirSync(fakes.records)).toEqual([`${runs[0]?.id}.json`]);
      const source = SOURCE_OF[scheme];
      const events = join(instance.path, 'runner', 'events');
      expect(readdirSync(join(events, source))).toEqual(['r-1.json']);
      expect(readdirSync(events)).toEqual([source]);
      expect(existsSync(join(instance.path, 'runner', 'etc'))).toBe(false);

      const digest = createHash('sha256').update(body).digest('hex');
      expect(supervisor?.store.deliveries({ source }).map((d) => [d.delivery, d.outcome, d.digest])).toEqual(
        ids.map((id, i) => [id ?? null, i === 0 ? 'accepted' : 'duplicate', digest]),
      );
      expect(auditLines().map((a) => [a.outcome, a.status, a.delivery, a.digest])).toEqual(
        ids.map((id, i) => [i === 0 ? 'accepted' : 'duplicate', i === 0 ? 202 : 200, id, digest]),
      );
    },
  );

  it('drops a replay whose unsigned event header was changed: the body is the same delivery [SEC-18]', async () => {
    const url = await start([recorder('github', ['push']), recorder('github', ['pull_request'], 'pr')]);
    const body = fixture('github', 'push.json');
    expect((await post(url, 'github', 'push', body, { delivery: 'p-1' })).status).toBe(202);
    const replay = await post(url, 'github', 'pull_request', body, { delivery: 'p-2' });
    const stripped = await post(url, 'github', '', body, { delivery: 'p-3' });
    await supervisor?.idle();
    expect(replay).toEqual({ status: 200, json: { duplicate: true, delivery: 'p-2', event_id: 'p-1' } });
    expect(stripped).toEqual({ status: 200, json: { duplicate: true, delivery: 'p-3', event_id: 'p-1' } });
    expect(supervisor?.store.list().map((r) => r.harness)).toEqual(['rec']);
  });

  it('starts one run when one signed body arrives eight times at once, each with its own delivery id [SEC-18]', async () => {
    const url = await start([recorder('gitea', ['pull_request'])]);
    const body = fixture('gitea', 'pull_request_opened.json');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(url, 'gitea', 'pull_request', body, { delivery: `c-${i}` })),
    );
    await supervisor?.idle();
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 202]);
    const first = answers.find((a) => a.status === 202)?.json.event_id;
    for (const a of answers.filter((x) => x.status === 200))
      expect(a.json).toMatchObject({ duplicate: true, event_id: first });
    expect(supervisor?.store.list().length).toBe(1);
    expect(readdirSync(fakes.records).length).toBe(1);
    expect(readdirSync(join(instance.path, 'runner', 'events', 'gt'))).toEqual([`${first}.json`]);
  });

  it('accepts two different signed bodies sent with the same delivery id, each in its own envelope file [SEC-18]', async () => {
    const url = await start([recorder('forgejo', ['push'])]);
    const bodies = [fixture('forgejo', 'HookPush.json'), fixture('forgejo', 'HookPushMulti.json')];
    for (const body of bodies)
      expect((await post(url, 'forgejo', 'push', body, { delivery: 'same-1' })).status).toBe(202);
    await supervisor?.idle();
    const files = (supervisor?.store.list() ?? []).map((r) => r.event_file as string);
    expect(files.length).toBe(2);
    expect(files[0]).toBe(join(instance.path, 'runner', 'events', 'fj', 'same-1.json'));
    expect(files[1]).not.toBe(files[0]);
    files.forEach((file, i) => {
      expect(JSON.parse(readFileSync(file, 'utf8')).webhook.body).toEqual(JSON.parse(bodies[i] as string));
    });
  });

  it('remembers an accepted body across a restart: a replay to the next runner starts nothing [SEC-18]', async () => {
    const harnesses = [recorder('github', ['release'])];
    const body = fixture('github', 'release_published.json');
    const first = await start(harnesses);
    expect((await post(first, 'github', 'release', body, { delivery: 'rel-1' })).status).toBe(202);
    await supervisor?.idle();
    await supervisor?.stop();
    const second = await start(harnesses);
    const replay = await post(second, 'github', 'release', body, { delivery: 'rel-2' });
    await supervisor?.idle();
    expect(replay).toEqual({ status: 200, json: { duplicate: true, delivery: 'rel-2', event_id: 'rel-1' } });
    expect(supervisor?.store.list().length).toBe(1);
  });

  it('accepts a body again once it is older than delivery_retention, and forgets the delivery ids seen with it [SEC-18]', async () => {
    const url = await start([recorder('gitea', ['push'])], { delivery_retention: '1h' });
    const body = fixture('gitea', 'push.json');
    expect((await post(url, 'gitea', 'push', body, { delivery: 'old-1' })).status).toBe(202);
    expect((await post(url, 'gitea', 'push', body, { delivery: 'old-2' })).status).toBe(200);
    // Age the records instead of waiting: the window is measured against received_at.
    const longAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const db = supervisor?.store.db;
    db?.prepare('UPDATE webhook_bodies SET received_at = ?').run(longAgo);
    db?.prepare('UPDATE webhook_deliveries SET received_at = ?').run(longAgo);
    const again = await post(url, 'gitea', 'push', body, { delivery: 'new-1' });
    await supervisor?.idle();
    expect(again.status).toBe(202);
    expect(supervisor?.store.list().length).toBe(2);
    expect(supervisor?.store.deliveries().map((d) => [d.delivery, d.outcome])).toEqual([
      ['new-1', 'accepted'],
    ]);
  });
});

describe('the run record of a webhook run', () => {
  /** A harness on `gh` pushes whose argv shows the source's name as templates read it. */
  const namedHarness = () => ({
    id: 'named',
    kind: 'command',
    trigger: { source: 'gh', events: ['push'] },
    argv: [join(fakes.bin, 'record'), '{{run.source}}', '{{event.source}}'],
  });

  it('names the source by its id and the delivery by the id the 202 answer names, while templates still read run.source as webhook.gh [TM-21]', async () => {
    const url = await start([namedHarness()]);
    const res = await post(url, 'github', 'push', fixture('github', 'push.json'), { delivery: 'd-42' });
    await supervisor?.idle();
    expect(res.status).toBe(202);
    const runId = (res.json.runs as string[])[0] as string;
    const record = supervisor?.store.get(runId);
    expect(record).toMatchObject({ source: 'gh', delivery: 'd-42', prompt_delivery: 'none' });
    expect(record?.delivery).toBe(res.json.delivery);
    expect(fakes.read(runId).argv).toEqual(['webhook.gh', 'webhook.gh']);
  });

  it('records delivery null when the forge sent no delivery id, as the 202 answer does', async () => {
    const url = await start([namedHarness()]);
    const res = await post(url, 'github', 'push', fixture('github', 'push.json'));
    await supervisor?.idle();
    expect(res.json).toMatchObject({ accepted: true, delivery: null });
    const runId = (res.json.runs as string[])[0] as string;
    expect(supervisor?.store.get(runId)).toMatchObject({ source: 'gh', delivery: null });
  });

  it('records a delivery id over 200 characters cut to its first 200, the value the 202 answer names', async () => {
    const url = await start([namedHarness()]);
    const long = `${'7'.repeat(199)}89`;
    const res = await post(url, 'github', 'push', fixture('github', 'push.json'), { delivery: long });
    await supervisor?.idle();
    expect(res.json.delivery).toBe(`${'7'.repeat(199)}8`);
    const runId = (res.json.runs as string[])[0] as string;
    expect(supervisor?.store.get(runId)?.delivery).toBe(`${'7'.repeat(199)}8`);
  });

  it('records a replay started by hand with the id of the source that received the event and no delivery id [TM-21]', async () => {
    const url = await start([namedHarness()]);
    const res = await post(url, 'github', 'push', fixture('github', 'push.json'), { delivery: 'd-7' });
    await supervisor?.idle();
    const first = supervisor?.store.get((res.json.runs as string[])[0] as string);
    const replay = await supervisor?.runNow('named', { eventFile: first?.event_file as string });
    expect(replay).toMatchObject({ trigger: 'manual', source: 'gh', delivery: null, status: 'succeeded' });
    expect(fakes.read(replay?.id as string).argv).toEqual(['webhook.gh', 'webhook.gh']);
  });
});
