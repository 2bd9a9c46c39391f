import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentialsFrom, getCommand, listCommands, PacksErrorCode } from '@harness/packs';
import { describe, expect, it } from 'vitest';
import { loadWorkspace, workspaceJsonSchema } from '../src/index';
import { loadErrors, loadOk, onePack } from './helpers';

describe('pack declaration', () => {
  it('a workspace declares command_packs, each with an id and commands with an id and argv [CP-01, CP-02]', async () => {
    const ws = await loadOk(onePack(`      - id: show\n        argv: [echo, hi]\n`));
    expect(ws.packs.map((p) => p.id)).toEqual(['p']);
    expect(ws.packs[0]?.commands[0]).toMatchObject({
      id: 'show',
      manifestId: 'p.show',
      argv: ['echo', 'hi'],
    });
  });

  it('a pack without commands, and a command without argv, fail load naming the position [CP-01]', async () => {
    expect(await loadErrors(`command_packs:\n  - id: p\n    commands: []\n`)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:15: command_packs[0].commands: expected at least one command, found a list of 0; e.g. commands: [{ id: status, effects: read, argv: [git, status] }]",
      ]
    `);
    expect(await loadErrors(onePack(`      - id: show\n`))).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:9: command_packs[0].commands[0].argv: missing; expected an argv list of strings; e.g. argv: [git, log, -n, "{{count}}"]",
      ]
    `);
  });

  it('argv is a list of strings, the first naming the executable (never a placeholder) [CP-02]', async () => {
    expect(await loadErrors(onePack(`      - id: a\n        argv: [echo, 3]\n`))).toMatchInlineSnapshot(`
      [
        "workspace.yaml:5:22: command_packs[0].commands[0].argv[1]: expected an argv element (a string), found number 3; e.g. argv: [git, log, -n, "{{count}}"]",
      ]
    `);
    expect(await loadErrors(onePack(`      - id: a\n        argv: ['{{exe}}', x]\n`))).toMatchInlineSnapshot(`
      [
        "workspace.yaml:5:17: command_packs[0].commands[0].argv[0]: argv[0] names the executable and must be literal; found the placeholder {{exe}}",
      ]
    `);
  });

  it('permission is one of open, cautious, strict, readonly; anything else fails load [CP-03]', async () => {
    for (const tier of ['open', 'cautious', 'strict', 'readonly']) {
      const ws = await loadOk(
        onePack(`      - id: a\n        argv: ['true']\n`, `    permission: ${tier}\n`),
      );
      expect(ws.packs[0]?.permission).toBe(tier);
    }
    expect(
      await loadErrors(onePack(`      - id: a\n        argv: ['true']\n`, `    permission: careful\n`)),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:17: command_packs[0].permission: expected a permission tier: open, cautious, strict or readonly, found "careful"; e.g. permission: cautious",
      ]
    `);
  });

  it('a pack with no permission is cautious [CP-04]', async () => {
    const ws = await loadOk(onePack(`      - id: a\n        argv: ['true']\n`));
    expect(ws.packs[0]?.permission).toBe('cautious');
    expect(ws.packs[0]?.commands[0]?.tier).toBe('cautious');
  });

  it('the tier is permission_overrides[command], else the pack permission [CP-05]', async () => {
    const ws = await loadOk(
      onePack(
        `      - id: a\n        argv: ['true']\n      - id: b\n        argv: ['true']\n`,
        `    permission: readonly\n    permission_overrides: { b: strict }\n`,
      ),
    );
    expect(ws.packs[0]?.commands.map((c) => [c.id, c.tier])).toEqual([
      ['a', 'readonly'],
      ['b', 'strict'],
    ]);
  });

  it('an override key naming no command of the pack fails load (decided: not ignored) [CP-06]', async () => {
    expect(
      await loadErrors(
        onePack(
          `      - id: a\n        argv: ['true']\n`,
          `    permission_overrides: { b: strict }\n    timeout_overrides:\n      big-report: 5m\n`,
        ),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:29: permission_overrides key "b" names no command of pack "p"; expected one of a",
        "workspace.yaml:5:7: timeout_overrides key "big-report" names no command of pack "p"; expected one of a",
      ]
    `);
  });

  it('D2: pack and command ids match [a-z0-9][a-z0-9_-]* (no dots); the manifest id is <pack>.<command>', async () => {
    expect(
      await loadErrors(
        `command_packs:\n  - id: json.tools\n    commands:\n      - id: Query\n        argv: [jq]\n`,
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:2:9: command_packs[0].id: expected a pack id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _), found "json.tools"; e.g. id: dev",
        "workspace.yaml:4:13: command_packs[0].commands[0].id: expected a command id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _), found "Query"; e.g. id: status",
      ]
    `);
    const ws = await loadOk(
      `command_packs:\n  - id: json-tools\n    commands:\n      - id: query-2\n        argv: [jq]\n`,
    );
    expect(getCommand(ws, 'json-tools.query-2')?.manifestId).toBe('json-tools.query-2');
  });

  it('a duplicate pack, command or agent id is an error naming both places [CP-73]', async () => {
    const text = `command_packs:
  - id: p
    commands:
      - id: a
        argv: ['true']
      - id: a
        argv: ['false']
  - id: p
    commands:
      - id: b
        argv: ['true']
agents:
  - id: r
  - id: r
`;
    expect(await loadErrors(text)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:6:13: command "p.a" is declared twice: here and at workspace.yaml:4:13; expected unique command ids in a pack",
        "workspace.yaml:8:9: pack id "p" is declared twice: here and at workspace.yaml:2:9; expected unique pack ids",
        "workspace.yaml:14:9: agent id "r" is declared twice: here and at workspace.yaml:13:9",
      ]
    `);
  });

  it('a pack command colliding with a host built-in id is an error naming both; workspace and loom are reserved pack ids [CP-73]', async () => {
    expect(
      await loadErrors(
        `command_packs:\n  - id: tools\n    commands:\n      - id: compose\n        argv: ['true']\n`,
        {
          reservedCommandIds: ['tools.compose'],
        },
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:13: command "tools.compose" collides with the host's built-in command "tools.compose"; rename the pack or the command",
      ]
    `);
    expect(
      await loadErrors(
        `command_packs:\n  - id: loom\n    commands:\n      - id: compose\n        argv: ['true']\n  - id: workspace\n    commands:\n      - id: x\n        argv: ['true']\n`,
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:2:9: pack id "loom" is reserved (workspace, loom); expected another id, e.g. "loom-tools"",
        "workspace.yaml:6:9: pack id "workspace" is reserved (workspace, loom); expected another id, e.g. "workspace-tools"",
      ]
    `);
  });

  it('rejects unknown keys, listing the keys that are accepted', async () => {
    expect(
      await loadErrors(
        `command_packs:\n  - id: p\n    permision: open\n    commands:\n      - id: a\n        argv: ['true']\n`,
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:5: command_packs[0]: expected only the keys id, description, permission, permission_overrides, unattended_when_confined, timeout, timeout_overrides, approval_wait, approval_timeout, telemetry, input_overrides, max_output, requires, cwd, env, credentials_ref, label, optional, scopes, sandbox, plan_inputs, commands; unknown key "permision"; e.g. command_packs: [{ id: dev, commands: [{ id: status, effects: read, argv: [git, status] }] }]",
      ]
    `);
  });

  it('reports YAML syntax errors with file:line:column', async () => {
    expect(await loadErrors(`command_packs:\n  - id: p\n    commands: [\n`)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:1: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
      ]
    `);
    expect(await loadErrors(`agents:\n  - id: a\n    id: b\n`)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:5: not valid YAML: Map keys must be unique",
      ]
    `);
  });

  it('reads JSON workspace files too', async () => {
    const ws = await loadOk(
      JSON.stringify({ command_packs: [{ id: 'p', commands: [{ id: 'a', argv: ['true'] }] }] }),
    );
    expect(ws.packs[0]?.commands[0]?.manifestId).toBe('p.a');
  });

  it('names an unreadable file', async () => {
    const r = await loadWorkspace({ file: '/nonexistent/workspace.yaml' });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues[0]).toMatchObject({
        code: PacksErrorCode.file_unreadable,
        file: '/nonexistent/workspace.yaml',
      });
  });
});

describe('argv templates and inputs', () => {
  it('inputs default to one required string per placeholder; {{x?}} is optional [CP-29]', async () => {
    const ws = await loadOk(onePack(`      - id: a\n        argv: [echo, '{{one}}', 'x={{two?}}']\n`));
    const c = getCommand(ws, 'p.a');
    expect(c?.inputs).toEqual({ one: { type: 'string' }, two: { type: 'string' } });
    expect(c?.required).toEqual(['one']);
  });

  it('declared inputs keep their JSON Schema; every placeholder must be declared and every input used [CP-29]', async () => {
    const ws = await loadOk(
      onePack(
        `      - id: a\n        argv: [echo, '{{n}}']\n        inputs:\n          n: { type: integer, minimum: 1, description: count, x-ui: slider }\n`,
      ),
    );
    expect(getCommand(ws, 'p.a')?.inputs).toEqual({
      n: { type: 'integer', minimum: 1, description: 'count', 'x-ui': 'slider' },
    });
    expect(
      await loadErrors(
        onePack(
          `      - id: a\n        argv: [echo, '{{n}}', '{{m}}']\n        inputs:\n          n: {}\n          extra: {}\n`,
        ),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:5:32: command_packs[0].commands[0].argv[2]: placeholder {{m}} names no declared input; expected one of n, extra, or declare it: inputs: { m: { type: string } }",
        "workspace.yaml:8:11: input "extra" is used by no argv placeholder; expected {{extra}} in argv, or remove the input",
      ]
    `);
  });

  it('refuses input schemas that cannot fit one argv element', async () => {
    expect(
      await loadErrors(
        onePack(
          `      - id: a\n        argv: [echo, '{{n}}']\n        inputs:\n          n: { type: object }\n`,
        ),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:7:22: command_packs[0].commands[0].inputs.n.type: expected an input type that fits one argv element: string, integer, number or boolean, found "object"; e.g. type: string",
      ]
    `);
    expect(
      await loadErrors(
        onePack(
          `      - id: a\n        argv: [echo, '{{n}}']\n        inputs:\n          n: { items: {} }\n`,
        ),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:7:16: command_packs[0].commands[0].inputs.n.items: expected only the keywords type, description, title, enum, pattern, minLength, maxLength, minimum, maximum, allow_leading_dash, code, default, within_cwd, enum_from_workspace or x-*; unknown keyword "items"; e.g. count: { type: integer, minimum: 1 }",
      ]
    `);
  });

  it('{{credential.NAME}} anywhere in argv is a load error, pointing at the placeholder [CP-38]', async () => {
    expect(
      await loadErrors(
        onePack(
          `      - id: a\n        argv: [gh, '--token={{credential.gh_token}}']\n`,
          `    credentials_ref: gh_token\n`,
        ),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:6:29: command_packs[0].commands[0].argv[1]: {{credential.gh_token}} puts a credential in argv, where ps and audit logs can read it; expected credentials in the pack's env only (env: { TOKEN: '{{credential.gh_token}}' })",
      ]
    `);
  });

  it('D1: a jq program with braces is an ordinary argv literal; a grammar error is reported at its column', async () => {
    const ws = await loadOk(onePack(`      - id: a\n        argv: [jq, '{a: .b} | .a', '{{file}}']\n`));
    expect(getCommand(ws, 'p.a')?.required).toEqual(['file']);
    expect(
      await loadErrors(onePack(`      - id: a\n        argv: [jq, 'x {{if y}}']\n`)),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:5:23: command_packs[0].commands[0].argv[1]: Invalid placeholder {{if y}}: found "if y"; expected one of {{path}}, {{path?}}, {{untrusted path}} or {{literal_open}} (there are no functions, filters or conditionals).",
      ]
    `);
  });

  it('shell metacharacters in an argv literal are not special, and a shell-looking command is still one exec [CP-80]', async () => {
    // Decided: a literal such as `.a | .b` is an ordinary jq program (D1), so literals are not refused.
    // What fails validation is a template that would need a shell or put a value where argv[0] is.
    const ws = await loadOk(onePack(`      - id: a\n        argv: [jq, '.a | .b', '{{file}}']\n`));
    expect(getCommand(ws, 'p.a')?.argv).toEqual(['jq', '.a | .b', '{{file}}']);
    const invalid = readFileSync(join(__dirname, 'fixtures', 'invalid-metachar.yaml'), 'utf8');
    expect(await loadErrors(invalid)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:8:17: command_packs[0].commands[0].argv[0]: argv[0] names the executable and must be literal; found the placeholder {{program}}",
        "workspace.yaml:10:42: command_packs[0].commands[1].argv[2]: {{credential.token}} puts a credential in argv, where ps and audit logs can read it; expected credentials in the pack's env only (env: { TOKEN: '{{credential.token}}' })",
      ]
    `);
  });
});

describe('env and credentials', () => {
  it('credentials_ref names the credential that env may place [CP-37]', async () => {
    const ws = await loadOk(
      onePack(
        `      - id: a\n        argv: [gh, pr, list]\n`,
        `    credentials_ref: gh_token\n    env: { GH_TOKEN: '{{credential.gh_token}}' }\n`,
      ),
    );
    expect(ws.packs[0]).toMatchObject({
      credentials: ['gh_token'],
      env: { GH_TOKEN: '{{credential.gh_token}}' },
    });
  });

  it('an env reference to an undeclared credential, or one the credential source lacks, fails load [CP-42]', async () => {
    expect(
      await loadErrors(
        onePack(`      - id: a\n        argv: [gh]\n`, `    env: { GH_TOKEN: 'x{{credential.gh_token}}' }\n`),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:24: command_packs[0].env.GH_TOKEN: {{credential.gh_token}} names a credential pack "p" does not declare; declare it: credentials_ref: [gh_token]",
      ]
    `);
    expect(
      await loadErrors(
        onePack(
          `      - id: a\n        argv: [gh]\n`,
          `    credentials_ref: [gh_token]\n    env: { GH_TOKEN: '{{credential.gh_token}}' }\n`,
        ),
        { credentials: credentialsFrom({ other: 'x' }) },
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:22: credential "gh_token" of pack "p" is not in the configured credential source (or is empty); add it to the host's credentials",
      ]
    `);
  });

  it('env may reference credentials only (no inputs, no untrusted text)', async () => {
    expect(
      await loadErrors(onePack(`      - id: a\n        argv: [gh]\n`, `    env: { A: '{{filter}}' }\n`)),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:16: command_packs[0].env.A: env may reference only {{credential.NAME}}; Unknown path filter in {{filter}}: it is not in the context table; check the spelling against the documented paths.",
      ]
    `);
  });
});

describe('bounds in human units', () => {
  it('timeout, max_output and timeout_overrides resolve; defaults are 30 s and 10 MiB [CP-43, CP-44, CP-45, CP-46]', async () => {
    const ws = await loadOk(`command_packs:
  - id: p
    timeout: 5m
    max_output: 2MB
    timeout_overrides: { slow: 1h }
    commands:
      - { id: fast, argv: ['true'] }
      - { id: slow, argv: ['true'] }
  - id: q
    commands:
      - { id: a, argv: ['true'] }
`);
    expect(
      ws.packs.flatMap((p) => p.commands.map((c) => [c.manifestId, c.timeoutMs, c.maxOutputBytes])),
    ).toEqual([
      ['p.fast', 300_000, 2_000_000],
      ['p.slow', 3_600_000, 2_000_000],
      ['q.a', 30_000, 10 * 1024 * 1024],
    ]);
  });

  it('bad units fail load with what was expected and found [CP-43]', async () => {
    expect(
      await loadErrors(
        onePack(`      - id: a\n        argv: ['true']\n`, `    timeout: 30\n    max_output: 10 megabytes\n`),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:14: command_packs[0].timeout: expected a duration such as 30s, 5m or 500ms, found number 30; e.g. timeout: 30s",
        "workspace.yaml:4:17: command_packs[0].max_output: expected a size such as 10MB, 512KB or 10MiB, found "10 megabytes"; e.g. max_output: 10MB",
      ]
    `);
    expect(
      await loadErrors(
        onePack(`      - id: a\n        argv: ['true']\n`, `    timeout: 2d\n    max_output: 5GB\n`),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:14: command_packs[0].timeout: expected a duration such as 30s, 5m or 500ms, found "2d"; e.g. timeout: 30s",
        "workspace.yaml:4:17: command_packs[0].max_output: expected a size above 0 and at most 1GiB (1073741824 bytes), found "5GB"; e.g. max_output: 10MB",
      ]
    `);
  });
});

describe('every load error in one pass', () => {
  it('reports a schema error in one pack with an undeclared placeholder and a credential in argv in another, each at file:line:column', async () => {
    const text = `command_packs:
  - id: broken
    permission: careful
    commands:
      - id: a
        argv: [echo]
  - id: p
    credentials_ref: token
    commands:
      - id: b
        argv: [curl, '{{site}}', '{{url}}', '--token={{credential.token}}']
        inputs:
          site: { type: string }
`;
    expect(await loadErrors(text)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:17: command_packs[0].permission: expected a permission tier: open, cautious, strict or readonly, found "careful"; e.g. permission: cautious",
        "workspace.yaml:11:35: command_packs[1].commands[0].argv[2]: placeholder {{url}} names no declared input; expected one of site, or declare it: inputs: { url: { type: string } }",
        "workspace.yaml:11:54: command_packs[1].commands[0].argv[3]: {{credential.token}} puts a credential in argv, where ps and audit logs can read it; expected credentials in the pack's env only (env: { TOKEN: '{{credential.token}}' })",
      ]
    `);
  });

  it('checks the templates of a command whose own entry is well formed, even inside a pack with schema errors', async () => {
    const text = `command_packs:
  - id: Bad.Pack
    commands:
      - id: a
        effects: sometimes
        argv: ['{{exe}}', '{{untrusted x}}']
`;
    expect(await loadErrors(text)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:2:9: command_packs[0].id: expected a pack id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _), found "Bad.Pack"; e.g. id: dev",
        "workspace.yaml:5:18: command_packs[0].commands[0].effects: expected effects read or write, found "sometimes"; e.g. effects: read",
        "workspace.yaml:6:17: command_packs[0].commands[0].argv[0]: argv[0] names the executable and must be literal; found the placeholder {{exe}}",
        "workspace.yaml:6:28: command_packs[0].commands[0].argv[1]: {{untrusted x}} is not allowed in argv; expected {{name}} or {{name?}}",
      ]
    `);
  });

  it('checks a command whose only fault is its id, and skips the template checks of one whose argv or inputs are malformed', async () => {
    const text = `command_packs:
  - id: p
    commands:
      - id: Bad.Id
        argv: [echo, '{{credential.x}}']
      - id: b
        argv: [echo, 3, '{{credential.x}}']
      - id: c
        argv: [echo, '{{credential.x}}']
        inputs: [x]
      - id: d
        argv: [echo, '{{y}}']
        inputs:
          x: {}
`;
    expect(await loadErrors(text)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:4:13: command_packs[0].commands[0].id: expected a command id matching [a-z0-9][a-z0-9_-]* (lowercase letters, digits, - and _), found "Bad.Id"; e.g. id: status",
        "workspace.yaml:5:23: command_packs[0].commands[0].argv[1]: {{credential.x}} puts a credential in argv, where ps and audit logs can read it; expected credentials in the pack's env only (env: { TOKEN: '{{credential.x}}' })",
        "workspace.yaml:7:22: command_packs[0].commands[1].argv[1]: expected an argv element (a string), found number 3; e.g. argv: [git, log, -n, "{{count}}"]",
        "workspace.yaml:10:17: command_packs[0].commands[2].inputs: expected a map, found a list of 1; e.g. inputs: { count: { type: integer, minimum: 1 } }",
        "workspace.yaml:12:23: command_packs[0].commands[3].argv[1]: placeholder {{y}} names no declared input; expected one of x, or declare it: inputs: { y: { type: string } }",
        "workspace.yaml:14:11: input "x" is used by no argv placeholder; expected {{x}} in argv, or remove the input",
      ]
    `);
  });

  it('keeps one issue per position: a schema issue on an input name wins over its unused-input issue', async () => {
    const text = onePack(`      - id: a\n        argv: [echo]\n        inputs:\n          Bad: {}\n`);
    expect(await loadErrors(text)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:7:11: command_packs[0].commands[0].inputs.Bad: expected an input name matching [a-z][a-z0-9_]*, found "Bad"; e.g. inputs: { count: { type: integer, minimum: 1 } }",
      ]
    `);
  });

  it('reports the same template issues whether or not another pack breaks the schema', async () => {
    const fixture = readFileSync(join(__dirname, 'fixtures', 'invalid-metachar.yaml'), 'utf8');
    const alone = await loadErrors(fixture);
    const broken = `${fixture}  - id: other\n    timeout: 30\n    commands:\n      - id: a\n        argv: [echo]\n`;
    const together = await loadErrors(broken);
    expect(together).toEqual([
      ...alone,
      'workspace.yaml:12:14: command_packs[1].timeout: expected a duration such as 30s, 5m or 500ms, found number 30; e.g. timeout: 30s',
    ]);
  });

  it('checks the env templates of a pack whose env is a map of strings and whose credentials_ref is absent or well formed', async () => {
    const text = `command_packs:
  - id: p
    permission: careful
    credentials_ref: token
    env:
      TOKEN: '{{credential.token}}'
      OTHER: 'Bearer {{credential.secret}}'
      FILTER: '{{filter}}'
    commands:
      - id: a
        argv: [echo]
  - id: q
    credentials_ref: Bad-Name
    env:
      X: '{{credential.nope}}'
    commands:
      - id: b
        argv: [echo]
  - id: r
    timeout: 30
    env:
      Y: '{{credential.none}}'
      Z: 3
    commands:
      - id: c
        argv: [echo]
  - description: no id
    env:
      W: '{{credential.gone}}'
    commands:
      - id: d
        argv: [echo]
`;
    expect(await loadErrors(text)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:17: command_packs[0].permission: expected a permission tier: open, cautious, strict or readonly, found "careful"; e.g. permission: cautious",
        "workspace.yaml:7:22: command_packs[0].env.OTHER: {{credential.secret}} names a credential pack "p" does not declare; expected one of credentials_ref: token, or add it: credentials_ref: [token, secret]",
        "workspace.yaml:8:16: command_packs[0].env.FILTER: env may reference only {{credential.NAME}}; Unknown path filter in {{filter}}: it is not in the context table; check the spelling against the documented paths.",
        "workspace.yaml:13:22: command_packs[1].credentials_ref: expected a credential name matching [a-z][a-z0-9_]*, found "Bad-Name"; e.g. credentials_ref: [gh_token]",
        "workspace.yaml:20:14: command_packs[2].timeout: expected a duration such as 30s, 5m or 500ms, found number 30; e.g. timeout: 30s",
        "workspace.yaml:23:10: command_packs[2].env.Z: expected an env value (a string), found number 3; e.g. GH_TOKEN: "{{credential.gh_token}}"",
        "workspace.yaml:27:5: command_packs[3].id: missing; expected a pack id (a string); e.g. id: dev",
        "workspace.yaml:29:11: command_packs[3].env.W: {{credential.gone}} names a credential this pack does not declare; declare it: credentials_ref: [gone]",
      ]
    `);
  });

  it('reports the same env issues whether or not another pack breaks the schema', async () => {
    const valid = onePack(
      `      - id: a\n        argv: [echo]\n`,
      `    credentials_ref: [token]\n    env: { A: '{{credential.other}}', B: '{{credential.token|x}}' }\n`,
    );
    const alone = await loadErrors(valid);
    expect(alone).toHaveLength(2);
    const broken = `${valid}  - id: other\n    timeout: 30\n    commands:\n      - id: a\n        argv: [echo]\n`;
    expect(await loadErrors(broken)).toEqual([
      ...alone,
      'workspace.yaml:9:14: command_packs[1].timeout: expected a duration such as 30s, 5m or 500ms, found number 30; e.g. timeout: 30s',
    ]);
  });

  it('grants are checked only once the schema passes (they need the packs resolved)', async () => {
    const text = `command_packs:
  - id: p
    permission: careful
    commands:
      - id: a
        argv: [echo, '{{credential.x}}']
agents:
  - id: a
    grants: [pack:nope]
`;
    expect(await loadErrors(text)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:3:17: command_packs[0].permission: expected a permission tier: open, cautious, strict or readonly, found "careful"; e.g. permission: cautious",
        "workspace.yaml:6:23: command_packs[0].commands[0].argv[1]: {{credential.x}} puts a credential in argv, where ps and audit logs can read it; expected credentials in the pack's env only (env: { TOKEN: '{{credential.x}}' })",
      ]
    `);
  });
});

describe('JSON Schema for editors', () => {
  it('schema/workspace.schema.json is generated from the zod schema and up to date (run pnpm schema)', () => {
    const shipped = JSON.parse(
      readFileSync(join(__dirname, '..', 'schema', 'workspace.schema.json'), 'utf8'),
    );
    expect(shipped).toEqual(workspaceJsonSchema());
  });

  it('is exported in package.json and shipped in files', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
    expect(pkg.exports['./workspace.schema.json']).toBe('./schema/workspace.schema.json');
    expect(pkg.files).toContain('schema');
  });
});

describe('approval_timeout', () => {
  const two = (workspaceKey: string, packKey: string) =>
    `${workspaceKey}command_packs:
  - id: a
${packKey}    commands:
      - { id: w, argv: ['true'], effects: write }
  - id: b
    commands:
      - { id: w, argv: ['true'], effects: write }
`;
  const lives = (ws: Awaited<ReturnType<typeof loadOk>>) =>
    ws.packs.flatMap((p) => p.commands.map((c) => [c.id, c.approvalTimeoutMs]));

  it('keeps a request open 15 minutes unless the workspace or the pack says, the pack winning', async () => {
    expect(lives(await loadOk(two('', '')))).toEqual([
      ['w', 900_000],
      ['w', 900_000],
    ]);
    expect(lives(await loadOk(two('approval_timeout: 1h\n', '    approval_timeout: 90s\n')))).toEqual([
      ['w', 90_000],
      ['w', 3_600_000],
    ]);
  });

  it('refuses a value that is not a duration, naming the line and an example', async () => {
    expect(await loadErrors(two('approval_timeout: forever\n', ''))).toEqual([
      'workspace.yaml:1:19: approval_timeout: expected a duration such as 30s, 5m or 500ms, found "forever"; e.g. approval_timeout: 15m',
    ]);
  });
});

describe('telemetry', () => {
  const two = (packKey: string) =>
    `command_packs:
  - id: a
${packKey}    commands:
      - { id: w, argv: ['true'], effects: write }
  - id: b
    commands:
      - { id: w, argv: ['true'], effects: write }
`;

  it("lets a pack's spans carry its argument values only when it says include_args: true", async () => {
    const rows = listCommands(await loadOk(two('    telemetry: { include_args: true }\n')));
    expect(rows.map((r) => [r.id, r.telemetryArgs])).toEqual([
      ['a.w', true],
      ['b.w', undefined],
    ]);
    const off = listCommands(await loadOk(two('    telemetry: { include_args: false }\n')));
    expect(off.map((r) => r.telemetryArgs)).toEqual([undefined, undefined]);
  });

  it('refuses an include_args that is not true or false, naming the line', async () => {
    const errors = await loadErrors(two('    telemetry: { include_args: yes }\n'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^workspace\.yaml:3:32: command_packs\[0\]\.telemetry\.include_args: expected true or false, found "yes"/,
    );
  });
});
