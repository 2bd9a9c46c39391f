import { parse, render, renderArgv, TmplError, type TmplWarning } from '@harness/tmpl';
import { describe, expect, it } from 'vitest';
import {
  allowSets,
  buildEnvelope,
  buildRenderContext,
  EventsError,
  parseRunTemplate,
  RUN_TRIGGERS,
  runContext,
  runContextPaths,
} from '../src/index';
import { fixtures } from './helpers';

const quiet = { onWarn: (_: TmplWarning) => undefined };
const codes = (src: string, location: 'argv' | 'prompt', untrustedInline = false) => {
  const r = parseRunTemplate(src, location, { untrustedInline, ...quiet });
  return r.ok ? [] : r.issues.map((i) => i.code);
};

const OPERATOR = ['harness.name', 'harness.workdir', 'model', 'prompt'];
const DAEMON = [
  'run.id',
  'run.trigger',
  'run.source',
  'run.started_at',
  'run.date',
  'prompt_file',
  'event.file',
  'event.id',
  'event.kind',
  'event.source',
  'event.received_at',
];
const TYPED = [
  'event.name',
  'event.action',
  'event.repo',
  'event.number',
  'event.url',
  'event.sha',
  'event.actor',
];
const UNTRUSTED = ['event.title', 'event.body', 'event.comment', 'event.ref', 'event.content'];

const pr = fixtures().find((f) => f.scheme === 'github' && f.file === 'pr_opened.json')!;
const loaded = buildEnvelope({
  source: 'webhook.github-pr',
  scheme: 'github',
  event: 'pull_request',
  delivery: 'gh-1',
  body: pr.body,
  trustedActors: ['bradrydzewski'],
  receivedAt: new Date('2026-09-22T05:10:00Z'),
});
const run = {
  id: 'run-42',
  trigger: 'webhook' as const,
  source: 'webhook.github-pr',
  startedAt: new Date('2026-09-22T05:10:07.5Z'),
};

describe('every template is checked against the allow set of its location [TM-17]', () => {
  it('argv, prompt and fence each have their own allow set [TM-17]', () => {
    expect(codes('{{event.repo}}', 'argv')).toEqual([]);
    expect(codes('{{prompt}}', 'prompt')).toEqual(['path_not_allowed']);
    expect(codes('{{untrusted event.body}}', 'argv')).toContain('fence_outside_prompt');
    expect(codes('Review {{untrusted event.body}}', 'prompt', true)).toEqual([]);
  });

  it('the allow sets, as data [TM-17]', () => {
    expect(allowSets.argv).toEqual([...OPERATOR, ...DAEMON, ...TYPED, 'event.meta.*']);
    const notInPrompt = new Set(['prompt', 'prompt_file']);
    expect(allowSets.prompt).toEqual(allowSets.argv.filter((p) => !notInPrompt.has(p)));
    expect(allowSets.fence).toEqual([...allowSets.prompt, ...UNTRUSTED]);
  });

  it('every issue of one template is reported at load, with its position [TM-17]', () => {
    const r = parseRunTemplate('{{event.repo}} {{nope}} {{event.title}}', 'argv', quiet);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues.map((i) => [i.code, i.path, i.column])).toEqual([
      ['unknown_path', 'nope', 16],
      ['untrusted_only_path', 'event.title', 25],
    ]);
  });
});

describe('a path not in the context table fails load [TM-18]', () => {
  it.each([
    'nope',
    'run',
    'run.idd',
    'event',
    'event.meta',
    'event.meta.a.b',
    'harness',
    'event.sender',
    'env.home',
  ])('{{%s}} is an unknown path [TM-18]', (path) => {
    expect(codes(`{{${path}}}`, 'argv')).toEqual(['unknown_path']);
    expect(codes(`{{${path}?}}`, 'prompt')).toEqual(['unknown_path']);
  });
});

describe('operator-supplied paths [TM-19]', () => {
  it.each(OPERATOR)('{{%s}} is allowed in argv [TM-19]', (path) => {
    expect(codes(`{{${path}}}`, 'argv')).toEqual([]);
  });
  it('the table marks them operator-supplied [TM-19]', () => {
    expect(runContextPaths.filter((r) => r.supplier === 'operator').map((r) => r.path)).toEqual(OPERATOR);
  });
});

describe('prompt is allowed in argv only [TM-20]', () => {
  it('{{prompt}} passes in argv and fails in a prompt template [TM-20]', () => {
    expect(codes('{{prompt}}', 'argv')).toEqual([]);
    expect(codes('{{prompt?}}', 'prompt')).toEqual(['path_not_allowed']);
    expect(codes('{{untrusted prompt}}', 'prompt', true)).toEqual(['path_not_allowed']);
  });
  it('prompt_file is argv-only too (decision: a prompt cannot name its own file) [TM-20]', () => {
    expect(codes('{{prompt_file}}', 'argv')).toEqual([]);
    expect(codes('{{prompt_file}}', 'prompt')).toEqual(['path_not_allowed']);
  });
  it('no run-context path is allowed in env [TM-20]', () => {
    expect(parse('{{run.id}}', { location: 'env', context: runContext }).ok).toBe(false);
  });
});

describe('daemon-supplied paths [TM-21]', () => {
  it.each(DAEMON)('{{%s}} is declared [TM-21]', (path) => {
    expect(codes(`{{${path}}}`, 'argv')).toEqual([]);
  });
  it('the table marks them daemon-supplied [TM-21]', () => {
    expect(runContextPaths.filter((r) => r.supplier === 'daemon').map((r) => r.path)).toEqual(DAEMON);
  });
  it('run.started_at is RFC 3339 UTC in whole seconds and run.date the UTC date (decision) [TM-21]', () => {
    const ctx = buildRenderContext({ run });
    expect(render('{{run.started_at}} {{run.date}}', ctx)).toBe('2026-09-22T05:10:07Z 2026-09-22');
    const lateEvening = buildRenderContext({
      run: { ...run, startedAt: new Date('2026-09-22T23:59:59+01:00') },
    });
    expect(render('{{run.date}}', lateEvening)).toBe('2026-09-22');
  });
});

describe('run.trigger is one of schedule, catch_up, manual, channel, webhook [TM-22]', () => {
  it.each(RUN_TRIGGERS)('%s renders [TM-22]', (trigger) => {
    expect(render('{{run.trigger}}', buildRenderContext({ run: { id: 'r', trigger } }))).toBe(trigger);
  });
  it.each(['cron', 'Webhook', '--exec', ''])('%j is refused [TM-22]', (trigger) => {
    expect(() => buildRenderContext({ run: { id: 'r', trigger: trigger as 'manual' } })).toThrow(EventsError);
  });
  it('lists exactly the five triggers [TM-22]', () => {
    expect([...RUN_TRIGGERS]).toEqual(['schedule', 'catch_up', 'manual', 'channel', 'webhook']);
  });
});

describe('typed paths [TM-23]', () => {
  it.each([...TYPED, 'event.meta.state', 'event.meta.ref_type', 'event.meta.anything'])(
    '{{%s}} is allowed in argv and prompt [TM-23]',
    (path) => {
      expect(codes(`{{${path}}}`, 'argv')).toEqual([]);
      expect(codes(`{{${path}?}}`, 'prompt')).toEqual([]);
    },
  );
  it('they render from the extraction [TM-23]', () => {
    const ctx = buildRenderContext({ event: loaded });
    expect(
      renderArgv(
        [
          'x',
          '{{event.name}}',
          '{{event.action}}',
          '{{event.repo}}',
          '{{event.number}}',
          '{{event.url}}',
          '{{event.sha}}',
          '{{event.actor}}',
          '{{event.meta.state}}',
        ],
        ctx,
      ),
    ).toEqual([
      'x',
      'pull_request',
      'opened',
      'bradrydzewski/drone-test-go',
      '1',
      'https://github.com/bradrydzewski/drone-test-go/pull/1',
      'd2b75aa7797ec26b088fa2dd527e9d2c052fcedd',
      'bradrydzewski',
      'open',
    ]);
  });
  it('an untrusted sender leaves {{event.actor}} unresolved [TM-23]', () => {
    const untrusted = buildEnvelope({
      source: 'webhook.github-pr',
      scheme: 'github',
      event: 'pull_request',
      body: pr.body,
    });
    const ctx = buildRenderContext({ event: untrusted });
    expect(() => render('{{event.actor}}', ctx)).toThrow(TmplError);
    expect(render('[{{event.actor?}}]', ctx)).toBe('[]');
  });
});

describe('untrusted-only paths fail as {{path}} or {{path?}} anywhere [TM-24]', () => {
  it.each(UNTRUSTED)('%s [TM-24]', (path) => {
    for (const form of [`{{${path}}}`, `{{${path}?}}`]) {
      expect(codes(form, 'argv')).toContain('untrusted_only_path');
      expect(codes(form, 'prompt')).toContain('untrusted_only_path');
      expect(codes(form, 'prompt', true)).toContain('untrusted_only_path');
    }
  });
});

describe('free text in argv fails load [TM-25]', () => {
  it.each([...UNTRUSTED, 'event.repo'])('{{untrusted %s}} in an argv element is refused [TM-25]', (path) => {
    expect(codes(`--title={{untrusted ${path}}}`, 'argv')).toContain('fence_outside_prompt');
  });
});

describe('{{untrusted …}} in a prompt needs untrusted_inline [TM-26]', () => {
  it('fails without it and passes with it, warning at load [TM-26]', () => {
    expect(codes('{{untrusted event.title}}', 'prompt', false)).toEqual(['fence_not_enabled']);
    const warnings: TmplWarning[] = [];
    const r = parseRunTemplate('{{untrusted event.title}}', 'prompt', {
      untrustedInline: true,
      onWarn: (w) => warnings.push(w),
    });
    expect(r.ok).toBe(true);
    expect(warnings.map((w) => w.code)).toEqual(['untrusted_inline_enabled']);
  });
});

describe('untrusted_inline is off by default [TM-27]', () => {
  it('parseRunTemplate refuses the fence unless asked [TM-27]', () => {
    const r = parseRunTemplate('{{untrusted event.body}}', 'prompt', quiet);
    expect(!r.ok && r.issues.map((i) => i.code)).toEqual(['fence_not_enabled']);
  });
  it('the render context carries no free text unless untrustedInline is set [TM-27]', () => {
    const off = buildRenderContext({ event: loaded }) as { event: Record<string, unknown> };
    for (const path of UNTRUSTED) expect(off.event[path.slice(6)]).toBeUndefined();
    const on = buildRenderContext({ event: loaded, untrustedInline: true }) as {
      event: Record<string, unknown>;
    };
    expect(on.event.title).toBe((pr.body as { pull_request: { title: string } }).pull_request.title);
  });
});

describe('{{untrusted path}} accepts the untrusted-only paths [TM-28]', () => {
  it.each(UNTRUSTED)('{{untrusted %s}} renders fenced [TM-28]', (path) => {
    const ctx = buildRenderContext({ event: loaded, untrustedInline: true });
    const out = render(`{{untrusted ${path}}}`, ctx, { fenceSource: 'webhook.github-pr', ...quiet });
    expect(out).toMatch(
      new RegExp(`^<untrusted-data source="webhook.github-pr" field="${path}" nonce="[0-9a-f]{32}">\\n`),
    );
  });
  it('it also accepts typed and daemon paths (tmpl decision: fencing a trusted value makes it inert) [TM-28]', () => {
    expect(codes('{{untrusted event.repo}} {{untrusted run.id}}', 'prompt', true)).toEqual([]);
  });
  it('a fenced path with untrusted_inline off in the context renders an empty block [TM-28]', () => {
    const out = render('{{untrusted event.title}}', buildRenderContext({ event: loaded }), quiet);
    expect(out).toMatch(/^<untrusted-data [^>]+>\n\n<\/untrusted-data nonce="[0-9a-f]{32}">$/);
  });
});

describe('templates read typed, never the raw payload [TM-29]', () => {
  it('no path reaches webhook.* [TM-29]', () => {
    for (const path of [
      'webhook.body',
      'webhook.body.title',
      'webhook.event',
      'typed.repo',
      'event.webhook.body',
    ]) {
      expect(codes(`{{${path}}}`, 'argv'), path).toEqual(['unknown_path']);
    }
    expect(runContextPaths.every((r) => !r.path.startsWith('webhook'))).toBe(true);
  });
  it('the render context holds no payload field outside the table [TM-29]', () => {
    const ctx = buildRenderContext({ event: loaded, untrustedInline: true });
    expect(Object.keys(ctx)).toEqual(['event']);
    expect(Object.keys(ctx.event as object)).not.toContain('webhook');
    expect(JSON.stringify(ctx)).not.toContain('"webhook":');
    // A payload-only value (the repository's numeric id, the clone url) is nowhere in the context.
    const body = pr.body as { repository: { clone_url: string } };
    expect(JSON.stringify(ctx)).not.toContain(body.repository.clone_url);
  });
});

describe('the render context comes from harness, run request and typed [TM-30]', () => {
  it('assembles operator, daemon and typed values [TM-30]', () => {
    const ctx = buildRenderContext({
      harness: { name: 'reviewer', workdir: '/srv/work' },
      model: 'anthropic/claude',
      prompt: 'Review it',
      run,
      event: { ...loaded, file: '/run/e.json' },
    });
    expect(
      renderArgv(
        [
          'agent',
          '--name',
          '{{harness.name}}',
          '-C',
          '{{harness.workdir}}',
          '--model',
          '{{model}}',
          '--',
          '{{prompt}}',
        ],
        ctx,
      ),
    ).toEqual([
      'agent',
      '--name',
      'reviewer',
      '-C',
      '/srv/work',
      '--model',
      'anthropic/claude',
      '--',
      'Review it',
    ]);
    expect(render('{{run.id}} {{run.trigger}} {{run.source}} {{event.file}}', ctx)).toBe(
      'run-42 webhook webhook.github-pr /run/e.json',
    );
  });
  it('config validation holds no run values: the declaration is paths only [TM-30]', () => {
    expect(
      runContext.paths.every((p) =>
        Object.keys(p).every((k) => ['path', 'locations', 'description', 'untrustedOnly'].includes(k)),
      ),
    ).toBe(true);
    expect(parseRunTemplate('{{run.id}} {{event.sha}}', 'argv').ok).toBe(true);
  });
  it('an absent value is an absent key: {{x?}} renders empty, {{x}} is unresolved [TM-30]', () => {
    const ctx = buildRenderContext({ run: { id: 'r', trigger: 'manual' } });
    expect(renderArgv(['a', '{{event.sha?}}'], ctx)).toEqual(['a', '']);
    try {
      render('{{event.sha}}', ctx);
      expect.unreachable();
    } catch (e) {
      expect((e as TmplError).code).toBe('unresolved');
      expect((e as TmplError).path).toBe('event.sha');
    }
  });
});
