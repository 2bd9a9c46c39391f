// What `packs check` says about the mistakes a new user makes first: each message names where, what
// was expected with its real alternatives, one example line of the right shape, and the fix.

import { formatIssue } from '@harness/packs';
import { describe, expect, it } from 'vitest';
import { WORKSPACE_EXAMPLES } from '../src/examples';
import { loadWorkspace } from '../src/index';
import { workspaceSchema } from '../src/schema';
import { loadErrors, onePack } from './helpers';

describe('an unquoted template in YAML', () => {
  it('says to quote the template, at its line and column, for a flow list and a block list', async () => {
    const errors = await loadErrors(
      onePack(
        `      - id: head\n        argv: [head, -n, {{n}}]\n      - id: tail\n        argv:\n          - tail\n          - {{ m }}\n`,
      ),
    );
    expect(errors).toEqual([
      'workspace.yaml:5:26: the unquoted template {{n}} reads as a YAML map; quote the template: "{{n}}"',
      'workspace.yaml:9:13: the unquoted template {{ m }} reads as a YAML map; quote the template: "{{ m }}"',
    ]);
  });

  it('refuses any other map used as a key, naming it', async () => {
    const errors = await loadErrors('agents: [{ id: me, grants: [{[a]: 1}] }]\n');
    expect(errors).toEqual([
      'workspace.yaml:1:29: a map key here is itself a map or a list, found "{[a]: 1}"; expected a plain key, e.g. key: value (quote a value that starts with "{" or "[")',
    ]);
  });
});

describe('messages that say what was expected', () => {
  it('names the alternatives and an example for output: json', async () => {
    const errors = await loadErrors(onePack(`      - id: a\n        argv: [cat]\n        output: json\n`));
    expect(errors).toEqual([
      'workspace.yaml:6:17: command_packs[0].commands[0].output: expected a map, found "json"; e.g. output: { parse: json }',
    ]);
  });

  it('never says "expected one of none": an undeclared input or credential says how to declare it', async () => {
    const errors = await loadErrors(
      onePack(
        `      - id: a\n        argv: [cat, '{{file}}']\n        inputs: {}\n`,
        `    env: { T: '{{credential.token}}' }\n`,
      ),
    );
    expect(errors.join('\n')).not.toContain('one of none');
    expect(errors).toEqual([
      'workspace.yaml:3:16: command_packs[0].env.T: {{credential.token}} names a credential pack "p" does not declare; declare it: credentials_ref: [token]',
      'workspace.yaml:6:22: command_packs[0].commands[0].argv[1]: placeholder {{file}} names no declared input; declare it: inputs: { file: { type: string } }',
    ]);
  });

  it('names the declared inputs when there are some, and how to add one', async () => {
    const errors = await loadErrors(
      onePack(`      - id: a\n        argv: [cat, '{{file}}', '{{dir}}']\n        inputs: { file: {} }\n`),
    );
    expect(errors).toEqual([
      'workspace.yaml:5:34: command_packs[0].commands[0].argv[2]: placeholder {{dir}} names no declared input; expected one of file, or declare it: inputs: { dir: { type: string } }',
    ]);
  });

  it('a grant in a workspace with no pack says how to declare one instead of "packs: none"', async () => {
    const errors = await loadErrors('agents: [{ id: me, grants: ["pack:dev"] }]\n');
    expect(errors).toEqual([
      'workspace.yaml:1:29: agent "me": grant "pack:dev" matches no pack; the workspace declares no pack; declare one under command_packs, e.g. command_packs: [{ id: dev, commands: [...] }]',
    ]);
  });

  // Every field of the file, given a value of the wrong shape: the message names what it expected in
  // words (never zod's bare "object" or "array") and shows an example line.
  const wrong: [string, string][] = [
    ['version', 'version: 2\n'],
    ['sandbox_mode', 'sandbox_mode: strict\n'],
    ['command_packs', 'command_packs: dev\n'],
    ['agents', 'agents: { id: me }\n'],
    ['agent id', 'agents: [{ id: Me }]\n'],
    ['grants', 'agents: [{ id: me, grants: pack:dev }]\n'],
    ['pack', onePack('      - id: a\n        argv: [cat]\n', '    permission: lax\n')],
    ['overrides', onePack('      - id: a\n        argv: [cat]\n', '    permission_overrides: [a]\n')],
    ['override', onePack('      - id: a\n        argv: [cat]\n', '    permission_overrides: { a: lax }\n')],
    ['timeout', onePack('      - id: a\n        argv: [cat]\n', '    timeout: soon\n')],
    ['max_output', onePack('      - id: a\n        argv: [cat]\n', '    max_output: 7\n')],
    ['requires', onePack('      - id: a\n        argv: [cat]\n', '    requires: jq\n')],
    [
      'requires.version',
      onePack('      - id: a\n        argv: [cat]\n', '    requires: [{ binary: jq, version: new }]\n'),
    ],
    ['env', onePack('      - id: a\n        argv: [cat]\n', '    env: [A]\n')],
    ['credentials_ref', onePack('      - id: a\n        argv: [cat]\n', '    credentials_ref: { a: b }\n')],
    ['label', onePack('      - id: a\n        argv: [cat]\n', '    label: secret\n')],
    ['optional', onePack('      - id: a\n        argv: [cat]\n', '    optional: maybe\n')],
    ['sandbox', onePack('      - id: a\n        argv: [cat]\n', '    sandbox: on\n')],
    ['filesystem', onePack('      - id: a\n        argv: [cat]\n', '    sandbox: { filesystem: [a] }\n')],
    ['network', onePack('      - id: a\n        argv: [cat]\n', '    sandbox: { network: wide }\n')],
    ['commands', onePack('      - 7\n')],
    ['argv', onePack('      - id: a\n        argv: cat\n')],
    ['argv missing', onePack('      - id: a\n')],
    ['inputs', onePack('      - id: a\n        argv: [cat]\n        inputs: [a]\n')],
    ['input', onePack(`      - id: a\n        argv: [cat, '{{a}}']\n        inputs: { a: string }\n`)],
    [
      'input type',
      onePack(`      - id: a\n        argv: [cat, '{{a}}']\n        inputs: { a: { type: file } }\n`),
    ],
    ['effects', onePack('      - id: a\n        argv: [cat]\n        effects: none\n')],
    ['output.parse', onePack('      - id: a\n        argv: [cat]\n        output: { parse: yaml }\n')],
    ['ok_exit_codes', onePack('      - id: a\n        argv: [cat]\n        ok_exit_codes: 1\n')],
    ['failure_exit_codes', onePack('      - id: a\n        argv: [cat]\n        failure_exit_codes: [1]\n')],
    [
      'failure_exit_codes.*',
      onePack('      - id: a\n        argv: [cat]\n        failure_exit_codes: { 1: broke }\n'),
    ],
    ['scopes', onePack('      - id: a\n        argv: [cat]\n        scopes: read\n')],
    ['unknown key', onePack('      - id: a\n        argv: [cat]\n        effect: read\n')],
  ];
  it.each(wrong)('%s: names the expected shape in words, with an example line', async (_, text) => {
    const errors = await loadErrors(text);
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) {
      expect(e).toMatch(/expected .*e\.g\. \S/);
      expect(e).not.toMatch(/expected (object|array|record|string|number|boolean)\b/);
      expect(e).not.toContain('one of none');
    }
  });

  it('has an example for every field of the schema', () => {
    const shapes = (schema: unknown, prefix: string, out: string[]): string[] => {
      const shape = (schema as { shape?: Record<string, unknown> }).shape;
      if (!shape) return out;
      for (const key of Object.keys(shape)) out.push(`${prefix}${key}`);
      return out;
    };
    const fields = shapes(workspaceSchema, '', []);
    const last = new Set(Object.keys(WORKSPACE_EXAMPLES).map((k) => k.split('.').at(-1)));
    for (const f of fields) expect(last, f).toContain(f);
  });
});

describe('an invalid command id', () => {
  it("hides none of that command's template errors: both are reported", async () => {
    const errors = await loadErrors(
      onePack(`      - id: Bad_Id\n        argv: [echo, '{{x}}']\n        inputs: { y: {} }\n`),
    );
    expect(errors).toEqual([
      'workspace.yaml:4:13: command_packs[0].commands[0].id: expected a command id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _), found "Bad_Id"; e.g. id: status',
      'workspace.yaml:5:23: command_packs[0].commands[0].argv[1]: placeholder {{x}} names no declared input; expected one of y, or declare it: inputs: { x: { type: string } }',
      'workspace.yaml:6:19: input "y" is used by no argv placeholder; expected {{y}} in argv, or remove the input',
    ]);
  });
});

describe('a pack whose binary is missing', () => {
  it('says the pack is unavailable because the binary is not on PATH, and that the grant names it', async () => {
    const r = await loadWorkspace(
      {
        text: `command_packs:\n  - id: dev\n    requires: [{ binary: no-such-binary-xyz }]\n    commands:\n      - { id: run, effects: read, argv: [no-such-binary-xyz] }\nagents:\n  - { id: me, grants: ["pack:dev", dev.run] }\n`,
        file: 'workspace.yaml',
      },
      { path: '/nonexistent-bin' },
    );
    expect(r.ok ? [] : r.issues.map(formatIssue)).toEqual([
      'workspace.yaml:3:16: pack "dev" is unavailable because no-such-binary-xyz is not on PATH; install no-such-binary-xyz, or mark the pack optional: true',
      'workspace.yaml:7:24: agent "me": grant "pack:dev" names an unavailable pack: "dev" is unavailable because no-such-binary-xyz is not on PATH',
      'workspace.yaml:7:36: agent "me": grant "dev.run" names an unavailable pack: "dev" is unavailable because no-such-binary-xyz is not on PATH',
    ]);
  });
});

describe('an element that starts with a value, with no "--" before it', () => {
  const warningsOf = async (text: string) => {
    const r = await loadWorkspace({ text, file: 'workspace.yaml' }, { probe: false });
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    // Where no sandbox mechanism works, the loader also warns that reads run unconfined: not these.
    return r.warnings.filter((w) => w.code !== 'sandbox_unavailable').map(formatIssue);
  };

  it('warns at check time, naming both fixes: a "--" element or a pattern forbidding a leading dash', async () => {
    expect(
      await warningsOf(
        onePack(`      - { id: grep, effects: read, argv: [grep, '{{pattern}}', file.txt] }\n`),
      ),
    ).toEqual([
      'workspace.yaml:4:49: argv[1] starts with {{pattern}}, so a value beginning with "-" (e.g. "-v") is refused when the command runs, though input "pattern" does not say so to the model; give the input a pattern that forbids a leading dash (pattern: "^[^-]"), or put a literal "--" element before it and set allow_leading_dash: true if grep honours "--"',
    ]);
  });

  it('is quiet when a "--" comes first or the schema already forbids a leading dash', async () => {
    const quiet = onePack(
      [
        `      - { id: a, effects: read, argv: [grep, --, '{{p}}'] }`,
        `      - { id: b, effects: read, argv: [grep, '{{p}}'], inputs: { p: { pattern: '^[^-]' } } }`,
        `      - { id: c, effects: read, argv: [head, -n, '{{n}}'], inputs: { n: { type: integer, minimum: 1 } } }`,
        `      - { id: d, effects: read, argv: [git, '{{b}}'], inputs: { b: { enum: [main, dev] } } }`,
        `      - { id: e, effects: read, argv: [git, 'log={{b}}'] }`,
        '',
      ].join('\n'),
    );
    expect(await warningsOf(quiet)).toEqual([]);
  });
});
