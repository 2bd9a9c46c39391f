// What an edit of the workspace widens and what it narrows: a table of edits of one real workspace
// file, each loaded by the real loader and compared with the base. A widening waits for a person
// (docs/workspace-changes.md); everything else applies at once.
import { join } from 'node:path';
import { tempDir } from '@harness/test-utils';
import { loadWorkspace, type Workspace } from '@harness/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareAuthority, NO_AUTHORITY } from '../src/workspace-authority';

const BASE = `version: 1
sandbox_mode: required
command_packs:
  - id: text
    permission: cautious
    timeout: 30s
    sandbox:
      filesystem: { write: [/tmp/harness-out], deny: [/usr/share] }
      network: none
      processes: 16
    commands:
      - id: echo
        argv: [echo, '{{message}}']
        effects: read
        inputs:
          message: { type: string, maxLength: 100, pattern: '^[a-z ]*$' }
      - id: mode
        argv: [echo, '{{level}}']
        effects: read
        scopes: [text:mode]
        inputs:
          level: { enum: [low, high] }
      - id: save
        argv: [touch, '{{name}}']
        effects: write
        inputs:
          name: { within_cwd: true }
agents:
  - id: demo
    scopes: [text:mode]
    grants: [pack:text, text.save]
`;

const ATTACK_PACK = `  - id: sh
    permission: open
    sandbox: false
    commands:
      - id: run
        argv: [sh, -c, '{{script}}']
        effects: read
`;

interface Row {
  readonly edit: string;
  readonly change: (base: string) => string;
  readonly widenings: readonly string[];
  readonly narrowings?: readonly string[];
}

const swap =
  (from: string, to: string) =>
  (text: string): string => {
    if (!text.includes(from)) throw new Error(`the base has no ${JSON.stringify(from)}`);
    return text.replace(from, to);
  };

const ROWS: readonly Row[] = [
  {
    edit: 'an open, unconfined sh -c pack granted to the agent',
    change: (t) =>
      t
        .replace('agents:\n', `${ATTACK_PACK}agents:\n`)
        .replace('[pack:text, text.save]', '[pack:text, text.save, pack:sh]'),
    widenings: [
      'agent demo: grants pack:sh (new)',
      'agent demo: runs sh.run: argv [sh, -c, {{script}}], tier open, effects read, unconfined (new)',
    ],
  },
  {
    edit: 'a new command under a pack the agent is granted whole',
    change: swap(
      '      - id: save\n',
      '      - id: hello\n        argv: [echo, hi]\n        effects: read\n      - id: save\n',
    ),
    widenings: [
      'agent demo: runs text.hello: argv [echo, hi], tier cautious, effects read, confined (network none, writes /tmp/harness-out) (new)',
    ],
  },
  {
    edit: 'a tier loosened by permission_overrides',
    change: swap('    timeout: 30s\n', '    timeout: 30s\n    permission_overrides: { save: open }\n'),
    widenings: ['text.save: tier cautious → open'],
  },
  {
    edit: 'a tier tightened',
    change: swap('permission: cautious', 'permission: strict'),
    widenings: [],
    narrowings: [
      'text.echo: tier cautious → strict',
      'text.mode: tier cautious → strict',
      'text.save: tier cautious → strict',
    ],
  },
  {
    edit: 'a tier set to readonly, which refuses writes but lets reads run',
    change: swap('permission: cautious', 'permission: readonly'),
    widenings: [],
    narrowings: [
      'text.echo: tier cautious → readonly',
      'text.mode: tier cautious → readonly',
      'text.save: tier cautious → readonly',
    ],
  },
  {
    edit: 'sandbox: false on the pack',
    change: swap(
      '    sandbox:\n      filesystem: { write: [/tmp/harness-out], deny: [/usr/share] }\n      network: none\n      processes: 16\n',
      '    sandbox: false\n',
    ),
    widenings: [
      'text.echo: sandbox confined → off',
      'text.mode: sandbox confined → off',
      'text.save: sandbox confined → off',
    ],
  },
  {
    edit: 'the network opened to the host',
    change: swap('network: none', 'network: host'),
    widenings: [
      'text.echo: network none → host',
      'text.mode: network none → host',
      'text.save: network none → host',
    ],
  },
  {
    edit: 'a write path added',
    change: swap('write: [/tmp/harness-out]', 'write: [/tmp/harness-out, /home/x]'),
    widenings: [
      'text.echo: write paths + /home/x',
      'text.mode: write paths + /home/x',
      'text.save: write paths + /home/x',
    ],
  },
  {
    edit: 'a denied path removed',
    change: swap('deny: [/usr/share]', 'deny: []'),
    widenings: [
      'text.echo: deny paths − /usr/share',
      'text.mode: deny paths − /usr/share',
      'text.save: deny paths − /usr/share',
    ],
  },
  {
    edit: 'the process limit lifted',
    change: swap('      processes: 16\n', ''),
    widenings: [
      'text.echo: processes 16 → no limit',
      'text.mode: processes 16 → no limit',
      'text.save: processes 16 → no limit',
    ],
  },
  {
    edit: 'a credential and the env that carries it',
    change: swap(
      '    timeout: 30s\n',
      "    timeout: 30s\n    credentials_ref: [gh_token]\n    env: { GH_TOKEN: '{{credential.gh_token}}' }\n",
    ),
    widenings: ['pack text: credential gh_token (new)', 'pack text: env GH_TOKEN (new)'],
    // The credential raises each command's label: its output may flow to fewer places.
    narrowings: ['text.echo: label raised', 'text.mode: label raised', 'text.save: label raised'],
  },
  {
    edit: 'sandbox_mode required → off',
    change: swap('sandbox_mode: required', 'sandbox_mode: off'),
    widenings: [
      'workspace: sandbox_mode required → off',
      'text.echo: sandbox confined → off',
      'text.mode: sandbox confined → off',
      'text.save: sandbox confined → off',
    ],
  },
  {
    edit: 'a grant removed',
    change: swap('[pack:text, text.save]', '[pack:text]'),
    widenings: [],
    narrowings: ['agent demo: grants text.save (removed)', 'agent demo: no longer runs text.save'],
  },
  {
    edit: 'a new agent',
    change: (t) => `${t}  - id: other\n    grants: [text.echo]\n`,
    widenings: [
      'agent other: new agent',
      'agent other: grants text.echo (new)',
      'agent other: runs text.echo: argv [echo, {{message}}], tier cautious, effects read, confined (network none, writes /tmp/harness-out) (new)',
    ],
  },
  {
    edit: 'the loom built-ins taken from the agent',
    change: swap(
      '    scopes: [text:mode]\n    grants',
      '    scopes: [text:mode]\n    builtins: false\n    grants',
    ),
    widenings: [],
    narrowings: ['agent demo: the loom.* built-ins no longer offered'],
  },
  {
    edit: 'a scope given to the agent',
    change: swap('scopes: [text:mode]\n    grants', 'scopes: [text:mode, repo:write]\n    grants'),
    widenings: ['agent demo: scope repo:write (new)'],
  },
  {
    edit: 'a scope a command required, dropped',
    change: swap('        scopes: [text:mode]\n', ''),
    widenings: ['text.mode: requires scope text:mode no longer'],
  },
  {
    edit: 'a changed argv',
    change: swap("argv: [echo, '{{message}}']", "argv: [sh, -c, '{{message}}']"),
    widenings: ['text.echo: argv [echo, {{message}}] → [sh, -c, {{message}}]'],
  },
  {
    edit: 'a write command declared a read',
    change: swap('effects: write', 'effects: read'),
    widenings: ['text.save: effects write → read'],
  },
  {
    edit: 'an enum value added, and one removed',
    change: swap('enum: [low, high]', 'enum: [low, medium]'),
    widenings: ['text.mode: input level: enum + medium'],
    narrowings: ['text.mode: input level: enum − high'],
  },
  {
    edit: 'a longer maxLength and no pattern',
    change: swap("maxLength: 100, pattern: '^[a-z ]*$'", 'maxLength: 1000'),
    widenings: [
      'text.echo: input message: pattern ^[a-z ]*$ → none',
      'text.echo: input message: maxLength 100 → 1000',
    ],
  },
  {
    edit: 'a shorter maxLength',
    change: swap('maxLength: 100', 'maxLength: 10'),
    widenings: [],
    narrowings: ['text.echo: input message: maxLength 100 → 10'],
  },
  {
    edit: 'within_cwd taken off a path input',
    change: swap('name: { within_cwd: true }', 'name: { type: string }'),
    widenings: ['text.save: input name no longer kept within cwd'],
  },
  {
    edit: 'a longer timeout',
    change: swap('timeout: 30s', 'timeout: 5m'),
    widenings: [
      'text.echo: timeout 30s → 300s',
      'text.mode: timeout 30s → 300s',
      'text.save: timeout 30s → 300s',
    ],
  },
  {
    edit: 'argument values sent on spans',
    change: swap('    timeout: 30s\n', '    timeout: 30s\n    telemetry: { include_args: true }\n'),
    widenings: [
      'text.echo: argument values on spans off → on',
      'text.mode: argument values on spans off → on',
      'text.save: argument values on spans off → on',
    ],
  },
  {
    edit: 'a notify target',
    change: (t) =>
      t.replace(
        'command_packs:\n',
        'notify:\n  targets:\n    - kind: ntfy\n      url: https://ntfy.example/topic\ncommand_packs:\n',
      ),
    widenings: ['notify: target ntfy (ntfy, new)'],
  },
  {
    edit: 'only a description',
    change: swap(
      "        argv: [echo, '{{message}}']\n",
      "        description: Says it.\n        argv: [echo, '{{message}}']\n",
    ),
    widenings: [],
    narrowings: [],
  },
];

let box: ReturnType<typeof tempDir>;
let file: string;

async function load(text: string): Promise<Workspace> {
  const r = await loadWorkspace({ file, text }, { probe: false });
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('\n'));
  return r.workspace;
}

beforeAll(() => {
  box = tempDir('host-authority-');
  file = join(box.path, 'workspace.yaml');
});
afterAll(() => box.cleanup());

describe('compareAuthority: an edit of the workspace', () => {
  it.each(ROWS)('$edit: the widenings and narrowings it shows [SEC-23]', async (row) => {
    const diff = compareAuthority(await load(BASE), await load(row.change(BASE)));
    expect(diff.widenings.map((c) => c.text)).toEqual(row.widenings);
    if (row.narrowings !== undefined) expect(diff.narrowings.map((c) => c.text)).toEqual(row.narrowings);
  });

  it('gives each change a path a tool can point at [SEC-23]', async () => {
    const diff = compareAuthority(await load(BASE), await load(ROWS[0]!.change(BASE)));
    expect(diff.widenings.map((c) => c.path)).toEqual(['agents/demo/grants', 'agents/demo/commands/sh.run']);
  });

  it('treats a change of a field it does not know as a widening [SEC-23]', async () => {
    const base = await load(BASE);
    const [pack] = base.packs;
    const [echo, ...rest] = pack!.commands;
    const edited = {
      ...base,
      packs: [{ ...pack!, commands: [{ ...echo!, runAs: 'root' }, ...rest] }],
    } as unknown as Workspace;
    expect(compareAuthority(base, edited).widenings).toEqual([
      { path: 'commands/text.echo/runAs', text: 'text.echo: runAs changed' },
    ]);
  });

  it('shows a workspace compared with nothing as all widening [SEC-23]', async () => {
    const diff = compareAuthority(NO_AUTHORITY, await load(BASE));
    expect(diff.narrowings).toEqual([]);
    expect(diff.widenings.map((c) => c.text).slice(0, 3)).toEqual([
      'agent demo: new agent, scopes text:mode',
      'agent demo: grants pack:text (new)',
      'agent demo: grants text.save (new)',
    ]);
  });

  it('shows a write made to run confined without approval as a widening, and the reverse as a narrowing [SEC-23]', async () => {
    const confined = swap(
      "        argv: [touch, '{{name}}']\n",
      "        argv: [touch, '{{name}}']\n        sandbox: { filesystem: { write: [.] } }\n",
    )(BASE);
    const unattended = swap(
      '    timeout: 30s\n',
      '    timeout: 30s\n    unattended_when_confined: [save]\n',
    )(confined);
    const asks = await load(confined);
    const runs = await load(unattended);
    expect(runs.packs[0]!.commands.find((c) => c.id === 'save')!.unattended).toBe(true);
    expect(compareAuthority(asks, runs)).toEqual({
      widenings: [
        { path: 'commands/text.save/unattended', text: 'text.save: runs confined without approval' },
      ],
      narrowings: [],
    });
    expect(compareAuthority(runs, asks).narrowings.map((c) => c.text)).toEqual([
      'text.save: asks a person again',
    ]);
  });

  it('finds nothing between a workspace and itself', async () => {
    expect(compareAuthority(await load(BASE), await load(BASE))).toEqual({ widenings: [], narrowings: [] });
  });
});
