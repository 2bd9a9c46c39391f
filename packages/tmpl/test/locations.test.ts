// The run-context table below mirrors origins.md ("Template grammar") so that the generic location
// mechanism can be tested against the real shape of the table. The table itself is owned and shipped by
// @harness/events; this copy is test data, not the source of truth.
import { describe, expect, it } from 'vitest';
import {
  type CheckOptions,
  checkTemplate,
  defineContext,
  IssueCode,
  type Location,
  type PathSpec,
  parse,
  render,
  type TmplWarning,
} from '../src/index';

const operator: PathSpec[] = [
  { path: 'harness.name' },
  { path: 'harness.workdir' },
  { path: 'model' },
  { path: 'prompt', locations: ['argv'] },
];
const daemon: PathSpec[] = [
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
].map((path) => ({ path }));
const typed: PathSpec[] = [
  'event.name',
  'event.action',
  'event.repo',
  'event.number',
  'event.url',
  'event.sha',
  'event.meta.*',
  'event.actor',
].map((path) => ({ path }));
const freeText: PathSpec[] = ['event.title', 'event.body', 'event.comment', 'event.ref', 'event.content'].map(
  (path) => ({ path, untrustedOnly: true, locations: ['prompt'] as const }),
);
const runContext = defineContext([
  ...operator,
  ...daemon,
  ...typed,
  ...freeText,
  { path: 'credential.*', locations: ['env'] },
]);

const quiet = { onWarn: () => {} };

function check(source: string, location: Location, extra: Partial<CheckOptions> = {}): string[] {
  const result = parse(source, { location, context: runContext, ...quiet, ...extra });
  return result.ok ? [] : result.issues.map((i) => i.code);
}

describe('references are checked against the allow set of their location [TM-17]', () => {
  it.each<[string, Location, string[]]>([
    ['{{run.id}}', 'argv', []],
    ['{{run.id}}', 'prompt', []],
    ['{{run.id}}', 'env', []],
    ['{{prompt}}', 'argv', []],
    ['{{prompt}}', 'prompt', [IssueCode.path_not_allowed]],
    ['{{untrusted event.body}}', 'argv', [IssueCode.fence_outside_prompt]],
    ['{{untrusted event.body}}', 'env', [IssueCode.fence_outside_prompt]],
    ['{{untrusted event.body}}', 'prompt', [IssueCode.fence_not_enabled]],
    ['{{credential.gh_token}}', 'env', []],
    ['{{credential.gh_token}}', 'argv', [IssueCode.credential_outside_env]],
    ['{{credential.gh_token}}', 'prompt', [IssueCode.credential_outside_env]],
  ])('TM-17: %s in %s gives %j', (source, location, expected) => {
    expect(check(source, location)).toEqual(expected);
  });

  it('checkTemplate checks an already parsed template the same way [TM-17]', () => {
    const result = parse('{{run.id}} {{nope}} {{event.body}}');
    if (!result.ok) throw new Error('parse failed');
    expect(checkTemplate(result.template, { location: 'argv', context: runContext })).toMatchInlineSnapshot(`
      [
        {
          "code": "unknown_path",
          "column": 12,
          "line": 1,
          "message": "Unknown path nope in {{nope}}: it is not in the context table; check the spelling against the documented paths.",
          "offset": 11,
          "path": "nope",
        },
        {
          "code": "untrusted_only_path",
          "column": 21,
          "line": 1,
          "message": "{{event.body}} reads free text: event.body may appear only fenced, as {{untrusted event.body}} in a prompt with untrustedInline; or give the agent {{event.file}}.",
          "offset": 20,
          "path": "event.body",
        },
      ]
    `);
  });

  it('grammar issues come before location checks (a template that does not parse is not checked) [TM-17]', () => {
    expect(check('{{nope}} {{if x}}', 'argv')).toEqual([IssueCode.invalid_placeholder]);
  });
});

describe('an unknown path fails load [TM-18]', () => {
  it.each(['{{runid}}', '{{run.idd}}', '{{event}}', '{{event.meta}}', '{{event.meta.a.b}}', '{{run.id.x?}}'])(
    '%s is unknown_path [TM-18]',
    (source) => {
      expect(check(source, 'prompt')).toEqual([IssueCode.unknown_path]);
    },
  );

  it('a wildcard segment matches exactly one segment [TM-18]', () => {
    expect(check('{{event.meta.team}} {{event.meta.x_1?}}', 'argv')).toEqual([]);
  });

  it('an exact entry wins over a wildcard one [TM-18]', () => {
    const ctx = defineContext([
      { path: 'a.*', locations: ['argv'] },
      { path: 'a.b', locations: ['prompt'] },
    ]);
    expect(ctx.match('a.b')?.locations).toEqual(['prompt']);
    expect(ctx.match('a.c')?.locations).toEqual(['argv']);
    expect(ctx.match('a')).toBeUndefined();
  });

  it('a malformed declaration throws invalid_declaration [TM-18]', () => {
    expect(() => defineContext([{ path: 'Bad.path' }])).toThrowErrorMatchingInlineSnapshot(
      `[TmplError: Invalid context path pattern "Bad.path" at entry 0: expected dotted segments [a-z][a-z0-9_]* or *, such as event.meta.*.]`,
    );
    expect(() => defineContext([{ path: 'a' }, { path: 'a' }])).toThrowErrorMatchingInlineSnapshot(
      `[TmplError: Context path a is declared twice: declare each path once.]`,
    );
    expect(() =>
      defineContext([{ path: 'a', locations: ['shell' as Location] }]),
    ).toThrowErrorMatchingInlineSnapshot(
      `[TmplError: Invalid location "shell" for context path a: expected argv, prompt or env.]`,
    );
  });
});

describe('operator-supplied paths [TM-19]', () => {
  it.each(['harness.name', 'harness.workdir', 'model', 'prompt'])(
    '{{%s}} is known in argv [TM-19]',
    (path) => {
      expect(check(`{{${path}}}`, 'argv')).toEqual([]);
    },
  );
});

describe('prompt is allowed in argv only [TM-20]', () => {
  it('{{prompt}} fails in a prompt template and in env [TM-20]', () => {
    expect(check('{{prompt}}', 'prompt')).toEqual([IssueCode.path_not_allowed]);
    expect(check('{{prompt?}}', 'env')).toEqual([IssueCode.path_not_allowed]);
    const result = parse('{{prompt}}', { location: 'prompt', context: runContext });
    expect(result.ok ? '' : result.issues[0]?.message).toMatchInlineSnapshot(
      `"{{prompt}} is not allowed in prompt: prompt is allowed in argv only."`,
    );
  });
});

describe('daemon-supplied paths [TM-21]', () => {
  it.each(daemon.map((d) => d.path))('TM-21: {{%s}} is known in argv and prompt', (path) => {
    expect(check(`{{${path}}}`, 'argv')).toEqual([]);
    expect(check(`{{${path}}}`, 'prompt')).toEqual([]);
  });
});

describe('run.trigger values render as-is [TM-22]', () => {
  it.each(['schedule', 'catch_up', 'manual', 'channel', 'webhook'])('run.trigger %s [TM-22]', (trigger) => {
    const result = parse('--trigger={{run.trigger}}', { location: 'argv', context: runContext });
    if (!result.ok) throw new Error('parse failed');
    expect(render(result.template, { run: { trigger } })).toBe(`--trigger=${trigger}`);
  });
});

describe('typed paths [TM-23]', () => {
  it.each([
    'event.name',
    'event.action',
    'event.repo',
    'event.number',
    'event.url',
    'event.sha',
    'event.meta.team',
    'event.actor',
  ])('{{%s}} is known in argv [TM-23]', (path) => {
    expect(check(`{{${path}}}`, 'argv')).toEqual([]);
  });
});

describe('untrusted-only paths fail as {{path}} or {{path?}} in any location [TM-24]', () => {
  const cases = freeText.flatMap((f) =>
    (['argv', 'prompt', 'env'] as const).flatMap((location) => [
      [`{{${f.path}}}`, location] as const,
      [`{{${f.path}?}}`, location] as const,
    ]),
  );
  it.each(cases)('%s in %s is untrusted_only_path [TM-24]', (source, location) => {
    expect(check(source, location, { untrustedInline: true })).toEqual([IssueCode.untrusted_only_path]);
  });
});

describe('free text in argv fails load [TM-25]', () => {
  it.each(['{{untrusted event.body}}', '--title={{untrusted event.title}}', '{{untrusted run.id}}'])(
    '%s in argv is refused, even with untrustedInline [TM-25]',
    (source) => {
      expect(check(source, 'argv', { untrustedInline: true })).toEqual([IssueCode.fence_outside_prompt]);
    },
  );

  it('the message [TM-25]', () => {
    const result = parse('{{untrusted event.body}}', { location: 'argv', context: runContext });
    expect(result.ok ? '' : result.issues[0]?.message).toMatchInlineSnapshot(
      `"{{untrusted event.body}} is not allowed in argv: the untrusted fence belongs in prompt templates only; pass the agent {{event.file}} instead."`,
    );
  });
});

describe('the fence in a prompt needs untrustedInline [TM-26]', () => {
  it('fails without it and passes with it [TM-26]', () => {
    expect(check('Review: {{untrusted event.body}}', 'prompt', { untrustedInline: false })).toEqual([
      IssueCode.fence_not_enabled,
    ]);
    expect(check('Review: {{untrusted event.body}}', 'prompt', { untrustedInline: true })).toEqual([]);
  });

  it('the message [TM-26]', () => {
    const result = parse('{{untrusted event.body}}', { location: 'prompt', context: runContext });
    expect(result.ok ? '' : result.issues[0]?.message).toMatchInlineSnapshot(
      `"{{untrusted event.body}} needs untrustedInline: the fence is off by default; set untrustedInline = true on this prompt's owner (read the danger note in docs/templates.md first), or use {{event.file}}."`,
    );
  });
});

describe('untrustedInline is off by default [TM-27]', () => {
  it('omitting the option refuses the fence [TM-27]', () => {
    const result = parse('{{untrusted event.body}}', { location: 'prompt', context: runContext });
    expect(result.ok ? [] : result.issues.map((i) => i.code)).toEqual([IssueCode.fence_not_enabled]);
  });
});

describe('{{untrusted path}} accepts untrusted-only paths (and, by decision, any prompt path) [TM-28]', () => {
  it.each(freeText.map((f) => f.path))('TM-28: {{untrusted %s}} is accepted in a prompt', (path) => {
    expect(check(`{{untrusted ${path}}}`, 'prompt', { untrustedInline: true })).toEqual([]);
  });

  it('typed and daemon paths may be fenced too; argv-only and unknown paths may not [TM-28]', () => {
    expect(
      check('{{untrusted event.repo}} {{untrusted run.id}}', 'prompt', { untrustedInline: true }),
    ).toEqual([]);
    expect(check('{{untrusted prompt}}', 'prompt', { untrustedInline: true })).toEqual([
      IssueCode.path_not_allowed,
    ]);
    expect(check('{{untrusted nope}}', 'prompt', { untrustedInline: true })).toEqual([
      IssueCode.unknown_path,
    ]);
    expect(check('{{untrusted credential.x}}', 'prompt', { untrustedInline: true })).toEqual([
      IssueCode.credential_outside_env,
    ]);
  });
});

describe('no path reaches the raw payload [TM-29]', () => {
  it.each(['{{webhook.body}}', '{{webhook.body.title}}', '{{webhook.event}}', '{{typed.repo}}'])(
    '%s is unknown_path [TM-29]',
    (source) => {
      expect(check(source, 'prompt', { untrustedInline: true })).toEqual([IssueCode.unknown_path]);
      expect(check(source.replace('{{', '{{untrusted '), 'prompt', { untrustedInline: true })).toEqual([
        IssueCode.unknown_path,
      ]);
    },
  );
});

describe('validation never sees run values [TM-30]', () => {
  it('checking takes a declaration and a template, and passes with no values at all [TM-30]', () => {
    const result = parse('{{run.id}} {{event.repo}}', { location: 'argv', context: runContext });
    expect(result.ok).toBe(true);
    // The declaration holds paths only: no value can travel from it into a check.
    expect(JSON.stringify(runContext.paths)).not.toMatch(/"value"/);
    expect(checkTemplate.length).toBe(2);
  });
});

describe('D1/CP-38: credential.* is legal in env only', () => {
  it('refuses a credential outside env even if a declaration allows it there [CP-38]', () => {
    const loose = defineContext([{ path: 'credential.*' }]);
    const argv = parse('{{credential.gh}}', { location: 'argv', context: loose });
    expect(argv.ok ? [] : argv.issues).toMatchInlineSnapshot(`
      [
        {
          "code": "credential_outside_env",
          "column": 1,
          "line": 1,
          "message": "{{credential.gh}} is not allowed in argv: a credential may appear only in env, where it never shows in argv or prompts; move it to the command's env.",
          "offset": 0,
          "path": "credential.gh",
        },
      ]
    `);
    expect(parse('{{credential.gh}}', { location: 'env', context: loose }).ok).toBe(true);
  });
});

describe('enabling the fence warns at load [TM-37]', () => {
  it('a prompt checked with untrustedInline emits untrusted_inline_enabled [TM-37]', () => {
    const warnings: TmplWarning[] = [];
    parse('plain', {
      location: 'prompt',
      context: runContext,
      untrustedInline: true,
      onWarn: (w) => warnings.push(w),
    });
    expect(warnings.map((w) => w.code)).toEqual(['untrusted_inline_enabled']);
    expect(warnings[0]?.message).toMatchInlineSnapshot(
      `"untrustedInline is enabled: free text from outside (issue titles, comment bodies) may be placed in this prompt inside the untrusted fence. Prefer pointing the agent at {{event.file}}."`,
    );
  });

  it('no warning when the fence stays off [TM-37]', () => {
    const warnings: TmplWarning[] = [];
    parse('plain', { location: 'prompt', context: runContext, onWarn: (w) => warnings.push(w) });
    parse('plain', {
      location: 'argv',
      context: runContext,
      untrustedInline: true,
      onWarn: (w) => warnings.push(w),
    });
    expect(warnings).toEqual([]);
  });
});
