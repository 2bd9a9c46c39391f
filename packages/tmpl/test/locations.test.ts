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

describe('TM-17: references are checked against the allow set of their location', () => {
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

  it('TM-17: checkTemplate checks an already parsed template the same way', () => {
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

  it('TM-17: grammar issues come before location checks (a template that does not parse is not checked)', () => {
    expect(check('{{nope}} {{if x}}', 'argv')).toEqual([IssueCode.invalid_placeholder]);
  });
});

describe('TM-18: an unknown path fails load', () => {
  it.each(['{{runid}}', '{{run.idd}}', '{{event}}', '{{event.meta}}', '{{event.meta.a.b}}', '{{run.id.x?}}'])(
    'TM-18: %s is unknown_path',
    (source) => {
      expect(check(source, 'prompt')).toEqual([IssueCode.unknown_path]);
    },
  );

  it('TM-18: a wildcard segment matches exactly one segment', () => {
    expect(check('{{event.meta.team}} {{event.meta.x_1?}}', 'argv')).toEqual([]);
  });

  it('TM-18: an exact entry wins over a wildcard one', () => {
    const ctx = defineContext([
      { path: 'a.*', locations: ['argv'] },
      { path: 'a.b', locations: ['prompt'] },
    ]);
    expect(ctx.match('a.b')?.locations).toEqual(['prompt']);
    expect(ctx.match('a.c')?.locations).toEqual(['argv']);
    expect(ctx.match('a')).toBeUndefined();
  });

  it('TM-18: a malformed declaration throws invalid_declaration', () => {
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

describe('TM-19: operator-supplied paths', () => {
  it.each(['harness.name', 'harness.workdir', 'model', 'prompt'])(
    'TM-19: {{%s}} is known in argv',
    (path) => {
      expect(check(`{{${path}}}`, 'argv')).toEqual([]);
    },
  );
});

describe('TM-20: prompt is allowed in argv only', () => {
  it('TM-20: {{prompt}} fails in a prompt template and in env', () => {
    expect(check('{{prompt}}', 'prompt')).toEqual([IssueCode.path_not_allowed]);
    expect(check('{{prompt?}}', 'env')).toEqual([IssueCode.path_not_allowed]);
    const result = parse('{{prompt}}', { location: 'prompt', context: runContext });
    expect(result.ok ? '' : result.issues[0]?.message).toMatchInlineSnapshot(
      `"{{prompt}} is not allowed in prompt: prompt is allowed in argv only."`,
    );
  });
});

describe('TM-21: daemon-supplied paths', () => {
  it.each(daemon.map((d) => d.path))('TM-21: {{%s}} is known in argv and prompt', (path) => {
    expect(check(`{{${path}}}`, 'argv')).toEqual([]);
    expect(check(`{{${path}}}`, 'prompt')).toEqual([]);
  });
});

describe('TM-22: run.trigger values render as-is', () => {
  it.each(['schedule', 'catch_up', 'manual', 'channel', 'webhook'])('TM-22: run.trigger %s', (trigger) => {
    const result = parse('--trigger={{run.trigger}}', { location: 'argv', context: runContext });
    if (!result.ok) throw new Error('parse failed');
    expect(render(result.template, { run: { trigger } })).toBe(`--trigger=${trigger}`);
  });
});

describe('TM-23: typed paths', () => {
  it.each([
    'event.name',
    'event.action',
    'event.repo',
    'event.number',
    'event.url',
    'event.sha',
    'event.meta.team',
    'event.actor',
  ])('TM-23: {{%s}} is known in argv', (path) => {
    expect(check(`{{${path}}}`, 'argv')).toEqual([]);
  });
});

describe('TM-24: untrusted-only paths fail as {{path}} or {{path?}} in any location', () => {
  const cases = freeText.flatMap((f) =>
    (['argv', 'prompt', 'env'] as const).flatMap((location) => [
      [`{{${f.path}}}`, location] as const,
      [`{{${f.path}?}}`, location] as const,
    ]),
  );
  it.each(cases)('TM-24: %s in %s is untrusted_only_path', (source, location) => {
    expect(check(source, location, { untrustedInline: true })).toEqual([IssueCode.untrusted_only_path]);
  });
});

describe('TM-25: free text in argv fails load', () => {
  it.each(['{{untrusted event.body}}', '--title={{untrusted event.title}}', '{{untrusted run.id}}'])(
    'TM-25: %s in argv is refused, even with untrustedInline',
    (source) => {
      expect(check(source, 'argv', { untrustedInline: true })).toEqual([IssueCode.fence_outside_prompt]);
    },
  );

  it('TM-25: the message', () => {
    const result = parse('{{untrusted event.body}}', { location: 'argv', context: runContext });
    expect(result.ok ? '' : result.issues[0]?.message).toMatchInlineSnapshot(
      `"{{untrusted event.body}} is not allowed in argv: the untrusted fence belongs in prompt templates only; pass the agent {{event.file}} instead."`,
    );
  });
});

describe('TM-26: the fence in a prompt needs untrustedInline', () => {
  it('TM-26: fails without it and passes with it', () => {
    expect(check('Review: {{untrusted event.body}}', 'prompt', { untrustedInline: false })).toEqual([
      IssueCode.fence_not_enabled,
    ]);
    expect(check('Review: {{untrusted event.body}}', 'prompt', { untrustedInline: true })).toEqual([]);
  });

  it('TM-26: the message', () => {
    const result = parse('{{untrusted event.body}}', { location: 'prompt', context: runContext });
    expect(result.ok ? '' : result.issues[0]?.message).toMatchInlineSnapshot(
      `"{{untrusted event.body}} needs untrustedInline: the fence is off by default; set untrustedInline = true on this prompt's owner (read the danger note in docs/templates.md first), or use {{event.file}}."`,
    );
  });
});

describe('TM-27: untrustedInline is off by default', () => {
  it('TM-27: omitting the option refuses the fence', () => {
    const result = parse('{{untrusted event.body}}', { location: 'prompt', context: runContext });
    expect(result.ok ? [] : result.issues.map((i) => i.code)).toEqual([IssueCode.fence_not_enabled]);
  });
});

describe('TM-28: {{untrusted path}} accepts untrusted-only paths (and, by decision, any prompt path)', () => {
  it.each(freeText.map((f) => f.path))('TM-28: {{untrusted %s}} is accepted in a prompt', (path) => {
    expect(check(`{{untrusted ${path}}}`, 'prompt', { untrustedInline: true })).toEqual([]);
  });

  it('TM-28: typed and daemon paths may be fenced too; argv-only and unknown paths may not', () => {
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

describe('TM-29: no path reaches the raw payload', () => {
  it.each(['{{webhook.body}}', '{{webhook.body.title}}', '{{webhook.event}}', '{{typed.repo}}'])(
    'TM-29: %s is unknown_path',
    (source) => {
      expect(check(source, 'prompt', { untrustedInline: true })).toEqual([IssueCode.unknown_path]);
      expect(check(source.replace('{{', '{{untrusted '), 'prompt', { untrustedInline: true })).toEqual([
        IssueCode.unknown_path,
      ]);
    },
  );
});

describe('TM-30: validation never sees run values', () => {
  it('TM-30: checking takes a declaration and a template, and passes with no values at all', () => {
    const result = parse('{{run.id}} {{event.repo}}', { location: 'argv', context: runContext });
    expect(result.ok).toBe(true);
    // The declaration holds paths only: no value can travel from it into a check.
    expect(JSON.stringify(runContext.paths)).not.toMatch(/"value"/);
    expect(checkTemplate.length).toBe(2);
  });
});

describe('D1/CP-38: credential.* is legal in env only', () => {
  it('CP-38: refuses a credential outside env even if a declaration allows it there', () => {
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

describe('TM-37: enabling the fence warns at load', () => {
  it('TM-37: a prompt checked with untrustedInline emits untrusted_inline_enabled', () => {
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

  it('TM-37: no warning when the fence stays off', () => {
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
