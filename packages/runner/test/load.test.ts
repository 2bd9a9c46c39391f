import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AGENT_KINDS,
  cell,
  DEFAULT_DELIVERY_RETENTION_MS,
  formatRunnerIssue,
  HARNESS_KINDS,
  type HarnessKind,
  MATRIX_KEYS,
  type MatrixKey,
  runnerJsonSchema,
} from '../src/index';
import { acceptanceYaml, loadDoc, mustLoad } from './helpers';

const SOURCE = { id: 'gh', scheme: 'github', secret_env: 'GH_SECRET', trusted_actors: ['octocat'] };
const FILES = {
  'p.txt': 'verbatim {{run.id}}\n',
  't.txt': 'template {{run.id}}\n',
  'ws.yaml': 'version: 1\n',
};

function doc(harness: Record<string, unknown>) {
  return { sources: [SOURCE], harnesses: [{ id: 'h', ...harness }] };
}

function codes(harness: Record<string, unknown>, options: { project?: boolean } = {}) {
  const { result } = loadDoc(doc(harness), { ...options, files: FILES });
  return result.ok ? [] : result.issues.map((i) => i.code);
}

describe('the acceptance example', () => {
  it('loads exactly as written, with the trigger, argv templates and stdin delivery', () => {
    const config = mustLoad(acceptanceYaml('/abs/path/record.js'));
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 8790 });
    expect(config.sources).toEqual([
      { id: 'gh', scheme: 'github', secretEnv: 'GH_WEBHOOK_SECRET', trustedActors: ['octocat'] },
    ]);
    const [h] = config.harnesses;
    expect(h?.when).toEqual({ type: 'trigger', source: 'gh', events: ['pull_request'] });
    expect(h?.delivery).toBe('stdin');
    expect(h?.argv?.[0]).toBe('/usr/bin/env');
    expect(h?.argvTemplates?.map((t) => t.source)).toEqual([
      'node',
      '/abs/path/record.js',
      '--',
      '{{event.repo}}',
      '{{event.number}}',
      '{{event.file}}',
    ]);
  });
});

// The minimal valid harness of each kind, and what a key needs beside it to be valid (cross-key rules).
function base(kind: HarnessKind): Record<string, unknown> {
  if (kind === 'command') return { kind, argv: ['/bin/true'] };
  if (kind === 'generic') return { kind, shell: 'true' };
  return { kind, prompt: 'hello' };
}
const VALUE: Record<MatrixKey, unknown> = {
  argv: ['/bin/true'],
  args: ['--verbose'],
  shell: 'true',
  transcripts: 'pi',
  prompt: 'hello',
  prompt_file: 'p.txt',
  prompt_template: 'hello {{run.id}}',
  prompt_template_file: 't.txt',
  prompt_delivery: 'stdin',
  untrusted_inline: true,
  model: 'anthropic/claude-sonnet-4',
  resident: true,
  schedule: '*/5 * * * *',
  trigger: { source: 'gh', events: ['pull_request'] },
  workdir: '.',
  env: { MODE: 'ci' },
  env_inherit: ['ANTHROPIC_API_KEY'],
  timeout: '5m',
  max_output: '1MB',
  tools: { workspace: 'ws.yaml', agent: 'me' },
};
const PROMPT_KEYS = ['prompt', 'prompt_file', 'prompt_template', 'prompt_template_file'];

function withKey(kind: HarnessKind, key: MatrixKey): Record<string, unknown> {
  const h: Record<string, unknown> = { ...base(kind), [key]: VALUE[key] };
  const agent = (AGENT_KINDS as readonly string[]).includes(kind);
  if (PROMPT_KEYS.includes(key) && agent && key !== 'prompt') delete h.prompt;
  if (PROMPT_KEYS.includes(key) && kind === 'command') h.prompt_delivery = 'stdin';
  if (key === 'prompt_delivery' && kind === 'command') h.prompt = 'hello';
  if (key === 'untrusted_inline') {
    delete h.prompt;
    h.prompt_template = 'hello';
    if (kind === 'command') h.prompt_delivery = 'stdin';
  }
  if ((key === 'resident' || key === 'args') && agent) {
    delete h.prompt;
    h.resident = true;
  }
  return h;
}

describe('the validation matrix', () => {
  for (const kind of HARNESS_KINDS) {
    for (const key of MATRIX_KEYS) {
      const c = cell(key, kind);
      if (c === 'forbidden') {
        it(`refuses ${key} on kind ${kind}, naming the key [TM-124]`, () => {
          const { result } = loadDoc(doc(withKey(kind, key)), { files: FILES });
          expect(result.ok).toBe(false);
          if (result.ok) return;
          const issue = result.issues.find((i) => i.path.at(-1) === key);
          expect(issue?.code).toBe(
            kind === 'generic' && PROMPT_KEYS.includes(key) ? 'generic_prompt' : 'key_not_allowed',
          );
          expect(issue?.message).toContain(key);
        });
      } else if (c === 'required') {
        it(`requires ${key} on kind ${kind} [TM-124]`, () => {
          const h = base(kind);
          delete h[key];
          expect(codes(h)).toContain('key_required');
          expect(codes(withKey(kind, key))).toEqual([]);
        });
      } else {
        it(`accepts ${key} on kind ${kind} [TM-124]`, () => {
          expect(codes(withKey(kind, key))).toEqual([]);
        });
      }
    }
  }

  it('keeps the new keys opt-in: a harness without them loads and has no prompt or delivery [TM-123]', () => {
    const config = mustLoad({
      harnesses: [{ id: 'nightly', kind: 'command', argv: ['/bin/date'], schedule: '0 3 * * *' }],
    });
    expect(config.harnesses[0]).toMatchObject({ kind: 'command', untrustedInline: false, args: [], env: {} });
    expect(config.harnesses[0]?.prompt).toBeUndefined();
    expect(config.harnesses[0]?.delivery).toBeUndefined();
  });
});

describe('generic harnesses (REQ-1)', () => {
  it('fails load for a generic harness with a prompt, naming every agent kind [TM-105]', () => {
    const { result } = loadDoc(doc({ kind: 'generic', shell: 'echo hi', prompt: 'review this' }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]?.code).toBe('generic_prompt');
    for (const kind of AGENT_KINDS) expect(result.issues[0]?.message).toContain(kind);
  });

  it('loads a generic resident one-liner unchanged [TM-106]', () => {
    const config = mustLoad(doc({ kind: 'generic', shell: 'while sleep 60; do date; done', resident: true }));
    expect(config.harnesses[0]).toMatchObject({
      kind: 'generic',
      shell: 'while sleep 60; do date; done',
      when: { type: 'resident' },
    });
  });
});

describe('prompt delivery at load', () => {
  it('accepts only argv, stdin and file as prompt_delivery [TM-87]', () => {
    expect(codes({ kind: 'command', argv: ['/bin/cat'], prompt: 'x', prompt_delivery: 'pipe' })).toEqual([
      'schema',
    ]);
    for (const d of ['stdin', 'file'])
      expect(codes({ kind: 'command', argv: ['/bin/cat'], prompt: 'x', prompt_delivery: d })).toEqual([]);
  });

  it('defaults to argv delivery when an argv element references {{prompt}} [TM-88]', () => {
    const config = mustLoad(doc({ kind: 'command', argv: ['/bin/echo', '{{prompt}}'], prompt: 'x' }));
    expect(config.harnesses[0]?.delivery).toBe('argv');
  });

  it('fails load for {{prompt}} in argv with stdin or file delivery [TM-90]', () => {
    for (const d of ['stdin', 'file']) {
      const { result } = loadDoc(
        doc({ kind: 'command', argv: ['/bin/echo', '{{prompt}}'], prompt: 'x', prompt_delivery: d }),
      );
      expect(result.ok ? '' : result.issues[0]?.message).toContain(
        '{{prompt}} is bound only with prompt_delivery: argv',
      );
    }
  });

  it('fails load for {{prompt_file}} in argv without file delivery [TM-91]', () => {
    const { result } = loadDoc(
      doc({ kind: 'command', argv: ['/bin/cat', '{{prompt_file}}'], prompt: 'x', prompt_delivery: 'stdin' }),
    );
    expect(result.ok ? '' : result.issues[0]?.message).toContain(
      '{{prompt_file}} is bound only with prompt_delivery: file',
    );
    expect(
      codes({ kind: 'command', argv: ['/bin/cat', '{{prompt_file}}'], prompt: 'x', prompt_delivery: 'file' }),
    ).toEqual([]);
  });

  it('refuses prompt_delivery on a built-in adapter: they keep argv [TM-101]', () => {
    for (const kind of AGENT_KINDS) {
      expect(codes({ kind, prompt: 'x', prompt_delivery: 'stdin' })).toEqual(['key_not_allowed']);
      expect(mustLoad(doc({ kind, prompt: 'x' })).harnesses[0]?.delivery).toBe('argv');
    }
  });

  it('refuses a command prompt with no way in, saying how to give it one', () => {
    const { result } = loadDoc(doc({ kind: 'command', argv: ['/bin/cat'], prompt: 'x' }));
    expect(result.ok ? '' : result.issues[0]?.message).toContain('set prompt_delivery (stdin or file)');
  });
});

describe('the command kind at load', () => {
  it('fails load for a placeholder in argv[0]: the executable is never rendered [TM-85]', () => {
    const { result } = loadDoc(doc({ kind: 'command', argv: ['/usr/bin/{{run.id}}', 'x'] }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]?.message).toContain('the executable is used as written');
    expect(result.issues[0]?.message).toContain('harnesses[0].argv[0]');
  });

  it('refuses free text in argv, even with untrusted_inline', () => {
    const { result } = loadDoc(
      doc({
        kind: 'command',
        argv: ['/bin/echo', '{{event.title}}'],
        trigger: { source: 'gh', events: ['issues'] },
      }),
    );
    expect(result.ok ? [] : result.issues.map((i) => i.code)).toEqual(['template']);
  });

  it('names file:line:column of a bad placeholder inside an argv element', () => {
    const yaml =
      'harnesses:\n  - id: h\n    kind: command\n    argv: [/bin/echo, "pr {{event.nope}}"]\n    trigger: { source: gh, events: [push] }\nsources: [{ id: gh, scheme: github, secret_env: S }]\n';
    const { result, file } = loadDoc(yaml);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const column = '    argv: [/bin/echo, "pr '.length + 1;
    expect(result.issues[0]).toMatchObject({ line: 4, column });
    expect(formatRunnerIssue(result.issues[0]!)).toMatch(
      new RegExp(`^${file}:4:${column}: harnesses\\[0\\]\\.argv\\[1\\]: `),
    );
  });

  it('names file:line:column of a schema error and of an unknown key', () => {
    const { result } = loadDoc(
      'harnesses:\n  - id: h\n    kind: robot\n    argv: [/bin/true]\n    colour: red\n',
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const kind = result.issues.find((i) => i.path.at(-1) === 'kind');
    expect(kind).toMatchObject({ line: 3, column: 11 });
    expect(kind?.message).toContain('expected a kind: command, claude-code, codex, crush, pi, omp, generic');
    const colour = result.issues.find((i) => i.path.at(-1) === 'colour');
    expect(colour).toMatchObject({ line: 5, column: 5 });
  });

  it('refuses a harness id that is not short and lowercase, saying what an id is, as the workspace file does', () => {
    const { result } = loadDoc({
      harnesses: [{ id: 'Nightly.build', kind: 'command', argv: ['/bin/true'] }],
    });
    expect(result.ok ? [] : result.issues.map((i) => i.message)).toContain(
      'harnesses[0].id: expected a harness id matching [a-z0-9][a-z0-9_-]{0,62} (lowercase letters, digits, - and _), found "Nightly.build"',
    );
  });
});

describe('verbatim and templated prompts at load', () => {
  it('reads prompt_file verbatim and parses prompt_template_file, relative to the runner file [TM-76] [TM-77]', () => {
    const config = mustLoad(
      {
        harnesses: [
          { id: 'a', kind: 'pi', prompt_file: 'p.txt' },
          { id: 'b', kind: 'pi', prompt_template_file: 't.txt' },
        ],
      },
      { files: FILES },
    );
    expect(config.harnesses[0]?.prompt).toEqual({
      kind: 'verbatim',
      from: 'prompt_file',
      text: 'verbatim {{run.id}}\n',
    });
    expect(config.harnesses[1]?.prompt?.kind).toBe('template');
  });

  it('names the template file, line and column of an error inside prompt_template_file', () => {
    const { result, dir } = loadDoc(
      { harnesses: [{ id: 'a', kind: 'pi', prompt_template_file: 't.txt' }] },
      { files: { 't.txt': 'line one\nsee {{event.nope}}\n' } },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]).toMatchObject({
      code: 'template',
      file: join(dir, 't.txt'),
      line: 2,
      column: 5,
    });
  });

  it('refuses a prompt file that cannot be read, naming the path', () => {
    const { result } = loadDoc({ harnesses: [{ id: 'a', kind: 'pi', prompt_file: 'missing.txt' }] });
    expect(result.ok ? '' : result.issues[0]?.message).toContain('missing.txt (ENOENT)');
  });

  it('warns at load for every harness with untrusted_inline, and allows the fence only then', () => {
    const h = {
      kind: 'claude-code',
      prompt_template: 'Title: {{untrusted event.title}}',
      trigger: { source: 'gh', events: ['issues'] },
    };
    expect(codes(h)).toEqual(['template']);
    const { result } = loadDoc(doc({ ...h, untrusted_inline: true }));
    expect(result.ok && result.warnings.map((w) => [w.code, w.message.slice(0, 28)])).toEqual([
      ['untrusted_inline', 'harness h: untrusted_inline '],
    ]);
  });
});

describe('project files', () => {
  it('validates a project file the same way as the operator file [TM-125]', () => {
    expect(codes({ kind: 'generic', shell: 'x', prompt: 'y' }, { project: true })).toEqual([
      'generic_prompt',
    ]);
    expect(codes({ kind: 'pi', prompt: 'x' }, { project: true })).toEqual([]);
  });

  it('refuses untrusted_inline in a project file, true or false [TM-126]', () => {
    for (const v of [true, false]) {
      expect(codes({ kind: 'pi', prompt_template: 'x', untrusted_inline: v }, { project: true })).toContain(
        'project_untrusted_inline',
      );
    }
  });
});

describe('harnesses on which every firing would skip', () => {
  it('rejects a required event path on a harness with no trigger [TM-83]', () => {
    for (const when of [{}, { schedule: '0 * * * *' }, { resident: true }]) {
      const { result } = loadDoc(doc({ kind: 'command', argv: ['/bin/echo', '{{event.repo}}'], ...when }));
      expect(result.ok ? '' : result.issues[0]?.code).toBe('always_skips');
    }
    expect(codes({ kind: 'command', argv: ['/bin/echo', '{{event.repo?}}'], schedule: '0 * * * *' })).toEqual(
      [],
    );
  });

  it('rejects a required {{event.actor}} when the source trusts no actor [TM-83]', () => {
    const { result } = loadDoc({
      sources: [{ id: 'gh', scheme: 'github', secret_env: 'S' }],
      harnesses: [
        {
          id: 'h',
          kind: 'pi',
          prompt_template: 'by {{event.actor}}',
          trigger: { source: 'gh', events: ['issues'] },
        },
      ],
    });
    expect(result.ok ? '' : result.issues[0]?.message).toContain('lists no trusted_actors');
  });

  it('rejects a required {{event.number}} on push, create or delete only [TM-83]', () => {
    const h = { kind: 'pi', prompt_template: 'PR {{event.number}}' };
    expect(codes({ ...h, trigger: { source: 'gh', events: ['push', 'create'] } })).toEqual(['always_skips']);
    expect(codes({ ...h, trigger: { source: 'gh', events: ['push', 'pull_request'] } })).toEqual([]);
  });
});

describe('sources, triggers and schedules', () => {
  it('refuses a trigger on an undeclared source, listing the declared ones', () => {
    const { result } = loadDoc(doc({ kind: 'pi', prompt: 'x', trigger: { source: 'gl', events: ['push'] } }));
    expect(result.ok ? '' : result.issues[0]?.message).toContain('no source "gl"; declared sources: gh');
  });

  it('refuses a schedule that is not a cron expression', () => {
    expect(codes({ kind: 'command', argv: ['/bin/true'], schedule: 'every day' })).toEqual([
      'invalid_schedule',
    ]);
  });

  it('refuses two ways of running in one harness', () => {
    expect(codes({ kind: 'command', argv: ['/bin/true'], schedule: '* * * * *', resident: true })).toEqual([
      'schema',
    ]);
  });

  it('refuses duplicate harness ids', () => {
    const { result } = loadDoc({
      harnesses: [
        { id: 'a', kind: 'command', argv: ['/bin/true'] },
        { id: 'a', kind: 'command', argv: ['/bin/true'] },
      ],
    });
    expect(result.ok ? [] : result.issues.map((i) => i.code)).toEqual(['duplicate_id']);
  });
});

describe('delivery_retention', () => {
  it('remembers accepted webhook bodies for 30 days unless the file says otherwise', () => {
    expect(mustLoad({ harnesses: [] }).deliveryRetentionMs).toBe(30 * 86_400_000);
    expect(DEFAULT_DELIVERY_RETENTION_MS).toBe(30 * 86_400_000);
  });

  it('reads a window in whole minutes, hours or days', () => {
    const windows = ['90m', '12h', '7d'].map((w) => mustLoad({ delivery_retention: w, harnesses: [] }));
    expect(windows.map((c) => c.deliveryRetentionMs)).toEqual([90 * 60_000, 12 * 3_600_000, 7 * 86_400_000]);
  });

  it('refuses a window that is not a whole number of minutes, hours or days, saying what it expects', () => {
    for (const bad of ['30s', '1.5d', '0d', 'forever']) {
      const { result } = loadDoc({ delivery_retention: bad, harnesses: [] });
      expect(result.ok ? '' : result.issues[0]?.message, bad).toContain(
        'delivery_retention: expected a retention window: a whole number of minutes, hours or days, such as 30d, 12h or 90m',
      );
    }
  });
});

describe('the shipped JSON Schema', () => {
  it('is generated from the zod schema and up to date (run pnpm schema)', () => {
    const shipped = JSON.parse(readFileSync(join(__dirname, '..', 'schema', 'runner.schema.json'), 'utf8'));
    expect(shipped).toEqual(runnerJsonSchema());
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
    expect(pkg.exports['./runner.schema.json']).toBe('./schema/runner.schema.json');
  });
});
