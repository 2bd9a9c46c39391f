import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { render, renderArgv } from '@harness/tmpl';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildEnvelope,
  buildRenderContext,
  EventsError,
  EventsErrorCode,
  extract,
  parseEnvelope,
  parseRunTemplate,
} from '../src/index';
import { ENVELOPE_FILE_MODE, readEnvelope, writeEnvelope } from '../src/node';
import { fixtures } from './helpers';

const giteaPr = fixtures().find((f) => f.scheme === 'gitea' && f.file === 'pull_request_opened.json')!;
const config = { source: 'webhook.gitea-pr', scheme: 'gitea', trustedActors: ['jcitizen'] } as const;
const receivedAt = new Date('2026-09-22T05:10:00.123Z');

const dirs: Array<{ cleanup: () => void }> = [];
function dir(): string {
  const d = tempDir('events-envelope-');
  dirs.push(d);
  return d.path;
}
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

async function written() {
  const path = join(dir(), 'run-1.event.json');
  const loaded = await writeEnvelope(path, {
    ...config,
    event: 'pull_request',
    delivery: '7f1e-0001',
    body: giteaPr.body,
    receivedAt,
  });
  return { path, loaded };
}

const TEMPLATE = [
  'review',
  '--repo',
  '{{event.repo}}',
  '--pr',
  '{{event.number}}',
  '{{event.sha}}',
  '{{event.id}}',
];
function parsedArgv() {
  return TEMPLATE.map((src) => {
    const r = parseRunTemplate(src, 'argv');
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    return r.template;
  });
}

describe('the envelope format [TM-70]', () => {
  it('holds version 1, kind, source, event_id, received_at, webhook {event, delivery, body} and typed [TM-70]', async () => {
    const { path } = await written();
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.keys(file)).toEqual([
      'version',
      'kind',
      'source',
      'event_id',
      'received_at',
      'webhook',
      'typed',
    ]);
    expect(file).toMatchObject({
      version: 1,
      kind: 'webhook',
      source: 'webhook.gitea-pr',
      event_id: '7f1e-0001',
      received_at: '2026-09-22T05:10:00Z',
      webhook: { event: 'pull_request', delivery: '7f1e-0001' },
    });
    expect(file.typed).toEqual({
      name: 'pull_request',
      action: 'opened',
      repo: 'jcitizen/my-repo',
      number: 1,
      url: 'https://try.gitea.io/jcitizen/my-repo/pulls/1',
      sha: '2eba238e33607c1fa49253182e9fff42baafa1eb',
      actor: 'jcitizen',
      meta: { state: 'open' },
    });
  });

  it('stores the raw delivery body, less its top-level secret [TM-70]', async () => {
    const { path } = await written();
    const file = JSON.parse(readFileSync(path, 'utf8'));
    const { secret, ...rest } = giteaPr.body as Record<string, unknown>;
    expect(typeof secret).toBe('string');
    expect(file.webhook.body).toEqual(rest);
  });

  it('an invalid delivery id gets a generated event_id (TM-64), the raw id stays in webhook.delivery [TM-70]', () => {
    const { envelope } = buildEnvelope({ ...config, event: 'push', delivery: '--x', body: {} });
    expect(envelope.event_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(envelope.webhook.delivery).toBe('--x');
  });

  it('refuses a source name no replay could read back [TM-70]', () => {
    let thrown: unknown;
    try {
      buildEnvelope({ ...config, source: '-bad source', event: 'push', body: {} });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(EventsError);
    expect((thrown as EventsError).code).toBe(EventsErrorCode.invalid_envelope);
  });
});

describe('written before spawn, mode 0600, atomically [TM-71]', () => {
  it('the file has mode 0600 [TM-71]', async () => {
    const { path } = await written();
    expect(statSync(path).mode & 0o777).toBe(ENVELOPE_FILE_MODE);
  });

  it('replaces an existing file whole and leaves no temporary file behind [TM-71]', async () => {
    const d = dir();
    const path = join(d, 'e.json');
    writeFileSync(path, 'old contents that are longer than nothing', { mode: 0o644 });
    await writeEnvelope(path, { ...config, event: 'push', body: {}, receivedAt });
    expect(readdirSync(d)).toEqual(['e.json']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8')).version).toBe(1);
  });

  it('a write into a missing directory fails with envelope_write_failed and writes nothing [TM-71]', async () => {
    const path = join(dir(), 'missing', 'e.json');
    await expect(writeEnvelope(path, { ...config, event: 'push', body: {} })).rejects.toMatchObject({
      code: EventsErrorCode.envelope_write_failed,
    });
  });
});

describe('extraction runs once, when the envelope is written [TM-40]', () => {
  it('the written envelope stores the extraction as typed [TM-40]', async () => {
    const { path, loaded } = await written();
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(file.typed).toEqual(loaded.extraction.typed);
    expect(loaded.extraction).toEqual(
      extract({
        scheme: 'gitea',
        event: 'pull_request',
        body: file.webhook.body,
        trustedActors: ['jcitizen'],
      }),
    );
  });
});

describe('the envelope typed holds exactly the values templates render [TM-41]', () => {
  it('every typed value renders through the run context unchanged [TM-41]', async () => {
    const { path, loaded } = await written();
    const ctx = buildRenderContext({ event: { ...loaded, file: path } });
    const typed = JSON.parse(readFileSync(path, 'utf8')).typed;
    for (const [key, value] of Object.entries(typed)) {
      if (key === 'meta') continue;
      expect(render(`{{event.${key}}}`, ctx)).toBe(String(value));
    }
    expect(render('{{event.meta.state}}', ctx)).toBe(typed.meta.state);
  });
});

describe('event.file and the envelope header render [TM-72, TM-73]', () => {
  it('{{event.file}} renders the envelope file path [TM-72]', async () => {
    const { path, loaded } = await written();
    const ctx = buildRenderContext({ event: { ...loaded, file: path } });
    expect(renderArgv(['cat', '{{event.file}}'], ctx)).toEqual(['cat', path]);
  });

  it('event.id, kind, source and received_at render event_id, kind, source and received_at [TM-73]', async () => {
    const { path, loaded } = await written();
    const ctx = buildRenderContext({ event: { ...loaded, file: path } });
    expect(render('{{event.id}} {{event.kind}} {{event.source}} {{event.received_at}}', ctx)).toBe(
      '7f1e-0001 webhook webhook.gitea-pr 2026-09-22T05:10:00Z',
    );
  });
});

describe('a replay re-extracts typed from the stored body [TM-74]', () => {
  it('a hand-edited typed is ignored [TM-74]', async () => {
    const { path, loaded } = await written();
    const file = JSON.parse(readFileSync(path, 'utf8'));
    file.typed = {
      ...file.typed,
      repo: 'evil/repo',
      number: 666,
      actor: 'mallory',
      sha: '-rf',
      extra: '--exec',
    };
    writeFileSync(path, JSON.stringify(file));
    const replay = await readEnvelope(path, config);
    expect(replay.ok).toBe(true);
    if (!replay.ok) return;
    expect(replay.value.envelope.typed).toEqual(loaded.envelope.typed);
    expect(replay.value.extraction).toEqual(loaded.extraction);
  });

  it('scheme and trusted actors come from configuration, not the file [TM-74]', async () => {
    const { path } = await written();
    const untrusting = await readEnvelope(path, { ...config, trustedActors: [] });
    expect(untrusting.ok && untrusting.value.envelope.typed.actor).toBeUndefined();
    const other = await readEnvelope(path, { ...config, scheme: 'cairn' });
    expect(other.ok && other.value.envelope.typed).toEqual({});
  });

  it('an edited body is what a replay extracts (the body is the single source) [TM-74]', async () => {
    const { path } = await written();
    const file = JSON.parse(readFileSync(path, 'utf8'));
    file.webhook.body.pull_request.head.sha = `-${'a'.repeat(39)}`;
    writeFileSync(path, JSON.stringify(file));
    const replay = await readEnvelope(path, config);
    expect(replay.ok && replay.value.envelope.typed.sha).toBeUndefined();
  });

  it.each([
    ['not json', '{', 'invalid_json'],
    ['an array', '[]', 'not_an_object'],
    ['version 2', '{"version":2}', 'unsupported_version'],
  ])('refuses %s [TM-74]', (_, text, code) => {
    const r = parseEnvelope(text, config);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues[0]?.code).toBe(code);
  });

  it('refuses a hand-edited header that would render a flag [TM-74]', async () => {
    const { path } = await written();
    const file = JSON.parse(readFileSync(path, 'utf8'));
    Object.assign(file, { event_id: '--exec', source: '-x', received_at: 'yesterday', kind: 'Webhook' });
    const r = parseEnvelope(file, config);
    expect(!r.ok && r.issues.map((i) => i.path)).toEqual(['kind', 'source', 'event_id', 'received_at']);
  });

  it('refuses an envelope of another source [TM-74]', async () => {
    const { path } = await written();
    const r = await readEnvelope(path, { ...config, source: 'webhook.other' });
    expect(!r.ok && r.issues[0]?.code).toBe('source_mismatch');
  });

  it('a missing file is an unreadable issue, not a throw [TM-74]', async () => {
    const r = await readEnvelope(join(dir(), 'nope.json'), config);
    expect(!r.ok && r.issues[0]?.code).toBe('unreadable');
  });
});

describe('a replay renders exactly what the original run rendered [TM-75]', () => {
  it.each(
    fixtures()
      .filter((f) => f.event === 'pull_request')
      .map((f) => [`${f.scheme}/${f.file}`, f] as const),
  )('TM-75: %s', async (_, f) => {
    const path = join(dir(), 'e.json');
    const cfg = { source: `webhook.${f.scheme}`, scheme: f.scheme, trustedActors: ['jcitizen', 'gordon'] };
    const original = await writeEnvelope(path, {
      ...cfg,
      event: 'pull_request',
      delivery: 'd-1',
      body: f.body,
      receivedAt,
    });
    const replay = await readEnvelope(path, cfg);
    expect(replay.ok).toBe(true);
    if (!replay.ok) return;
    const argv = parsedArgv();
    const run = { id: 'r1', trigger: 'webhook' as const };
    const before = renderArgv(argv, buildRenderContext({ run, event: { ...original, file: path } }), {});
    const after = renderArgv(argv, buildRenderContext({ run, event: { ...replay.value, file: path } }), {});
    expect(after).toEqual(before);
    expect(replay.value.envelope).toEqual(original.envelope);
  });
});
