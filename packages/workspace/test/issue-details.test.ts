// Every issue carries its code's details as data (docs/errors.md), beside the message people read:
// a caller branches on `code` and reads `details`, never the message text.

import {
  credentialsFrom,
  type LoadOptions,
  type PacksIssue,
  type PacksIssueDetails,
  renderPackCommand,
  runPackCommand,
} from '@harness/packs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { loadWorkspace, resolveGrants } from '../src/index';
import { loadOk, onePack } from './helpers';

/** The issues of a load that fails, each as `[code, details]`. */
async function issuesOf(text: string, options: LoadOptions = {}): Promise<[string, unknown][]> {
  const r = await loadWorkspace({ text, file: 'workspace.yaml' }, { probe: false, ...options });
  if (r.ok) throw new Error('expected the load to fail, but it succeeded');
  return r.issues.map((i) => [i.code, i.details]);
}

/** The warnings of a load that succeeds, each as `[code, details]`. */
async function warningsOf(text: string, options: LoadOptions = {}): Promise<[string, unknown][]> {
  const r = await loadWorkspace({ text, file: 'workspace.yaml' }, { probe: false, ...options });
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('\n'));
  return r.warnings.map((w) => [w.code, w.details]);
}

const cmd = (line: string) => onePack(`      - ${line}\n`);

describe('load issues carry typed details', () => {
  it('an unreadable file names the system reason; a YAML error has only its position', async () => {
    const r = await loadWorkspace({ file: '/nonexistent/workspace.yaml' });
    expect(!r.ok && r.issues.map((i) => [i.code, i.details])).toEqual([
      ['file_unreadable', { reason: 'ENOENT' }],
    ]);
    const y = await loadWorkspace({ text: 'a: [1,\n', file: 'w.yaml' });
    expect(!y.ok && y.issues[0]).toMatchObject({
      code: 'yaml_syntax',
      file: 'w.yaml',
      line: expect.any(Number),
    });
    expect(!y.ok && y.issues[0]?.details).toBeUndefined();
  });

  it('a schema issue says what was expected and what was found, without the word "expected"', async () => {
    expect(
      await issuesOf(onePack(`      - id: a\n        argv: ['true']\n`, `    permission: careful\n`)),
    ).toEqual([
      ['schema', { expected: 'a permission tier: open, cautious, strict or readonly', found: '"careful"' }],
    ]);
    expect(
      await issuesOf(`command_packs:\n  - id: p\n    bogus: 1\n    commands: [{ id: a, argv: ['true'] }]\n`),
    ).toEqual([
      [
        'schema',
        {
          expected: expect.stringMatching(/^only the keys id, description, /),
          found: '"bogus"',
        },
      ],
    ]);
    expect(await issuesOf(onePack(`      - id: show\n`))).toEqual([
      ['schema', { expected: 'an argv list of strings', found: 'nothing' }],
    ]);
  });

  it('a duplicate id names its kind, the id and where it was first declared; a built-in clash says so', async () => {
    const twice = `command_packs:\n  - id: p\n    commands: [{ id: a, argv: ['true'] }]\n  - id: p\n    commands: [{ id: a, argv: ['true'] }]\n`;
    expect(await issuesOf(twice)).toEqual([
      ['duplicate_id', { kind: 'pack', id: 'p', first: { line: 2, column: 9 } }],
    ]);
    const agents = `${cmd(`{ id: a, argv: ['true'] }`)}agents:\n  - id: x\n  - id: x\n`;
    expect(await issuesOf(agents)).toEqual([
      ['duplicate_id', { kind: 'agent', id: 'x', first: { line: 6, column: 9 } }],
    ]);
    const clash = `command_packs:\n  - id: loom2\n    commands: [{ id: compose, argv: ['true'] }]\n`;
    expect(await issuesOf(clash, { reservedCommandIds: ['loom2.compose'] })).toEqual([
      ['duplicate_id', { kind: 'command', id: 'loom2.compose', builtIn: true }],
    ]);
  });

  it('a reserved pack id and an override naming no command name the pack and what would do', async () => {
    expect(
      await issuesOf(`command_packs:\n  - id: loom\n    commands: [{ id: a, argv: ['true'] }]\n`),
    ).toEqual([['reserved_id', { pack: 'loom', reserved: ['workspace', 'loom'] }]]);
    expect(
      await issuesOf(
        onePack(`      - { id: a, argv: ['true'] }\n`, `    permission_overrides: { nope: open }\n`),
      ),
    ).toEqual([
      ['unknown_override', { pack: 'p', key: 'permission_overrides', command: 'nope', expected: ['a'] }],
    ]);
  });

  it('template issues give the reason and the placeholder; credentials in argv and unknown inputs are named', async () => {
    expect(await issuesOf(cmd(`{ id: a, argv: ['{{exe}}', x] }`))).toEqual([
      ['template', { reason: 'placeholder_in_executable', placeholder: 'exe' }],
    ]);
    expect(await issuesOf(cmd(`{ id: a, argv: [echo, '{{x'] }`))).toEqual([
      ['template', { reason: 'unclosed_placeholder' }],
    ]);
    expect(await issuesOf(cmd(`{ id: a, argv: [echo, '{{credential.tok}}'] }`))).toEqual([
      ['credential_in_argv', { placeholder: 'credential.tok' }],
    ]);
    const inputs = cmd(`{ id: a, argv: [echo, '{{b}}'], inputs: { a: { type: string } } }`);
    expect(await issuesOf(inputs)).toEqual([
      ['input_mismatch', { input: 'b', reason: 'undeclared', expected: ['a'] }],
      ['input_mismatch', { input: 'a', reason: 'unused', expected: ['a'] }],
    ]);
  });

  it('an unknown credential names the credential, the pack and the credentials declared', async () => {
    const env = onePack(
      `      - { id: a, argv: ['true'] }\n`,
      `    env: { T: '{{credential.nope}}' }\n    credentials_ref: [tok]\n`,
    );
    expect(await issuesOf(env)).toEqual([
      ['unknown_credential', { credential: 'nope', pack: 'p', reason: 'undeclared', expected: ['tok'] }],
    ]);
    const source = onePack(
      `      - { id: a, argv: ['true'] }\n`,
      `    env: { T: '{{credential.tok}}' }\n    credentials_ref: tok\n`,
    );
    expect(await issuesOf(source, { credentials: credentialsFrom({ other: 'x' }) })).toEqual([
      ['unknown_credential', { credential: 'tok', pack: 'p', reason: 'not_in_source', expected: ['tok'] }],
    ]);
  });

  it('a missing requirement names the pack and the binary, and the grant that names it', async () => {
    const text = `${onePack(`      - { id: a, argv: ['true'], effects: read }\n`, `    requires: [{ binary: no-such-binary-x }]\n`)}agents:\n  - id: g\n    grants: [pack:p]\n`;
    expect(await issuesOf(text, { probe: true, path: '/nonexistent-bin' })).toEqual([
      ['requirement_missing', { pack: 'p', binary: 'no-such-binary-x' }],
      ['requirement_missing', { pack: 'p', binary: 'no-such-binary-x', grant: 'pack:p' }],
    ]);
  });

  it('grant issues name the grant and what it could have named', async () => {
    const packs = `command_packs:\n  - id: r\n    commands: [{ id: look, argv: ['true'], effects: read }]\n  - id: w\n    commands: [{ id: rm, argv: ['true'] }]\n`;
    expect(
      await issuesOf(`${packs}agents:\n  - id: g\n    grants: [pack:nope, pack:w, server:x, r.nope]\n`),
    ).toEqual([
      ['grant_unknown', { grant: 'pack:nope', expected: ['r', 'w'] }],
      ['grant_empty', { grant: 'pack:w', pack: 'w', writes: ['w.rm'] }],
      ['grant_unknown', { grant: 'server:x', expected: [] }],
      ['grant_unknown', { grant: 'r.nope', expected: ['r.look'] }],
    ]);
    const ws = await loadOk(packs);
    const r = resolveGrants(ws, 'nobody');
    expect(!r.ok && r.issues.map((i) => [i.code, i.details])).toEqual([
      ['unknown_agent', { agent: 'nobody', expected: [] }],
    ]);
  });

  it('a sandbox path issue names the command, the entry and why', async () => {
    const text = cmd(
      `{ id: c, argv: ['true'], effects: read, sandbox: { filesystem: { read: ['~bob/x'] } } }`,
    );
    expect(await issuesOf(text)).toEqual([
      ['sandbox_path', { command: 'p.c', entry: expect.any(String), reason: 'cwd_outside_read' }],
      ['sandbox_path', { command: 'p.c', entry: '~bob/x', reason: 'other_home' }],
    ]);
  });

  it('argv safety and credential flow warnings name the command, the input and the credentials', async () => {
    expect(
      await warningsOf(cmd(`{ id: g, argv: [grep, '{{pattern}}'], effects: read, sandbox: false }`)),
    ).toEqual([['argv_safety', { command: 'p.g', input: 'pattern' }]]);
    const flow = onePack(
      `      - { id: q, argv: [jq, '--', '{{filter}}'], effects: read, sandbox: false, inputs: { filter: { type: string, pattern: '^[^-]', code: true } } }\n`,
      `    env: { T: '{{credential.tok}}' }\n    credentials_ref: tok\n`,
    );
    expect(await warningsOf(flow)).toEqual([
      ['credential_flow', { command: 'p.q', credentials: ['tok'], input: 'filter' }],
    ]);
  });
});

describe('call issues carry typed details', () => {
  const text = cmd(
    `{ id: e, argv: [echo, '{{v}}'], inputs: { v: { type: string }, n: { type: integer, minimum: 0 } } }`,
  ).replace("'{{v}}'", "'x{{v}}', '{{n?}}'");

  it('bad arguments name the command, the input, the reason and the expectation, never a string value', async () => {
    const ws = await loadOk(text);
    const r = renderPackCommand(ws, 'p.e', { v: 'secret-looking', n: 1.5, extra: 'x' });
    expect(!r.ok && r.issues.map((i) => [i.code, i.details])).toEqual([
      ['invalid_args', { command: 'p.e', input: 'extra', reason: 'unknown_input', expected: 'v, n' }],
      [
        'invalid_args',
        { command: 'p.e', input: 'n', reason: 'invalid_value', expected: 'an integer', found: '1.5' },
      ],
    ]);
    const notObject = renderPackCommand(ws, 'p.e', 'v=1');
    expect(!notObject.ok && notObject.issues[0]?.details).toEqual({
      command: 'p.e',
      reason: 'not_an_object',
      expected: 'an object',
    });
    const wrongType = renderPackCommand(ws, 'p.e', { v: 3 });
    expect(!wrongType.ok && wrongType.issues[0]?.details).toEqual({
      command: 'p.e',
      input: 'v',
      reason: 'invalid_value',
      expected: 'a string',
      found: 'number',
    });
  });

  it('an unknown command lists what it could have been; a refused render names the input and the reason', async () => {
    const ws = await loadOk(cmd(`{ id: e, argv: [echo, '{{v}}'] }`));
    const unknown = renderPackCommand(ws, 'p.nope', {});
    expect(!unknown.ok && unknown.issues[0]?.details).toEqual({ command: 'p.nope', expected: ['p.e'] });
    const refused = renderPackCommand(ws, 'p.e', { v: '-rf' });
    expect(!refused.ok && refused.issues[0]?.details).toEqual({
      command: 'p.e',
      reason: 'flag_injection',
      input: 'v',
    });
  });

  it('a missing credential and a missing executable name the command and what was missing; nothing runs', async () => {
    const ws = await loadOk(
      onePack(
        `      - { id: a, argv: [no-such-exe-x] }\n`,
        `    env: { T: '{{credential.tok}}' }\n    credentials_ref: tok\n`,
      ),
    );
    const noCred = await runPackCommand(ws, 'p.a', {});
    expect(!noCred.ok && noCred.issues[0]?.details).toEqual({ command: 'p.a', credentials: ['tok'] });
    const noExe = await runPackCommand(
      ws,
      'p.a',
      {},
      { credentials: credentialsFrom({ tok: 't' }), path: '/nonexistent-bin' },
    );
    expect(!noExe.ok && noExe.issues[0]?.details).toEqual({
      command: 'p.a',
      executable: 'no-such-exe-x',
      reason: 'executable_not_found',
    });
  });
});

describe('the issue type', () => {
  it('narrows details by code', () => {
    const f = (i: PacksIssue) => (i.code === 'grant_unknown' ? i.details : undefined);
    expectTypeOf(f).returns.toEqualTypeOf<PacksIssueDetails['grant_unknown'] | undefined>();
    expectTypeOf<Extract<PacksIssue, { code: 'yaml_syntax' }>['details']>().toEqualTypeOf<undefined>();
  });
});
