import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPacks } from '../src/index';
import { loadErrors, loadOk, onePack, workDir } from './helpers';

const greet = (examples: string) =>
  onePack(`      - id: greet
        argv: [echo, --, '{{name}}', 'n={{count}}']
        inputs:
          name: { type: string, pattern: "^[a-z]+$", description: who }
          count: { type: integer, default: 1, minimum: 1 }
        effects: read
        examples:
${examples}`);

describe('command examples, checked at load', () => {
  it('an example whose arguments render exactly its argv holds, defaults filled in', async () => {
    const ws = await loadOk(
      greet(`          - { args: { name: ada }, argv: [echo, --, ada, n=1] }
          - { args: { name: ada, count: 3 }, argv: [echo, --, ada, n=3] }
`),
    );
    expect(ws.packs[0]?.commands[0]?.examples).toEqual([
      { args: { name: 'ada' }, argv: ['echo', '--', 'ada', 'n=1'] },
      { args: { name: 'ada', count: 3 }, argv: ['echo', '--', 'ada', 'n=3'] },
    ]);
  });

  it('an example that renders another argv fails the load, naming the command and the example index', async () => {
    expect(
      await loadErrors(
        greet(`          - { args: { name: ada }, argv: [echo, --, ada, n=1] }
          - { args: { name: ada }, argv: [echo, ada] }
`),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:12:13: command_packs[0].commands[0].examples[1]: example 1 of p.greet does not hold: {"name":"ada"} renders ["echo","--","ada","n=1"]; the example says ["echo","ada"]",
      ]
    `);
  });

  it('a refused example must be refused, and for what it says: an issue code, a reason or words of the message', async () => {
    const ok = await loadOk(
      greet(`          - { args: { name: Ada }, refused: invalid_args }
          - { args: { name: Ada }, refused: invalid_value }
          - { args: { name: Ada }, refused: to match the pattern }
          - { args: {}, refused: missing }
          - { args: { name: ada, extra: 1 }, refused: unknown_input }
`),
    );
    expect(ok.packs[0]?.commands[0]?.examples).toHaveLength(5);
    expect(
      await loadErrors(
        greet(`          - { args: { name: ada }, refused: invalid_args }
          - { args: { name: Ada }, refused: flag_injection }
`),
      ),
    ).toMatchInlineSnapshot(`
      [
        "workspace.yaml:11:13: command_packs[0].commands[0].examples[0]: example 0 of p.greet does not hold: {"name":"ada"} is not refused, it renders ["echo","--","ada","n=1"]; the example says it is refused (invalid_args)",
        "workspace.yaml:12:13: command_packs[0].commands[0].examples[1]: example 1 of p.greet does not hold: {"name":"Ada"} is refused as invalid_args (invalid_value), not for "flag_injection"",
      ]
    `);
  });

  it('an argv example whose arguments are refused fails with the refusal', async () => {
    expect(
      await loadErrors(greet(`          - { args: { name: Ada }, argv: [echo, --, Ada, n=1] }\n`)),
    ).toMatchInlineSnapshot(`
        [
          "workspace.yaml:11:13: command_packs[0].commands[0].examples[0]: example 0 of p.greet does not hold: {"name":"Ada"} is refused (p.greet: argument "name" expected to match the pattern ^[a-z]+$); expected the argv ["echo","--","Ada","n=1"]",
        ]
      `);
  });

  it('an example has exactly one of argv and refused', async () => {
    expect(await loadErrors(greet(`          - { args: { name: ada } }\n`))).toMatchInlineSnapshot(`
      [
        "workspace.yaml:11:13: command_packs[0].commands[0].examples[0]: expected an example with exactly one of argv (what it renders to) or refused (why it is refused), found a map; e.g. examples: [{ args: { count: 3 }, argv: [git, log, -n, "3"] }, { args: { count: 0 }, refused: invalid_value }]",
      ]
    `);
  });

  it("a variant's examples are checked against that variant, the command's against every variant", async () => {
    const text = onePack(`      - id: v
        inputs: { word: { type: string, pattern: "^[a-z]+$", description: a word } }
        variants:
          - argv: [echo, first, '{{word}}']
            examples: [{ args: { word: a }, argv: [echo, first, a] }]
          - argv: [echo, second, '{{word}}']
            examples: [{ args: { word: a }, argv: [echo, first, a] }]
        examples: [{ args: { word: A }, refused: invalid_value }]
        effects: read
`);
    expect(await loadErrors(text)).toMatchInlineSnapshot(`
      [
        "workspace.yaml:10:24: command_packs[0].commands[0].variants[1].examples[0]: example 0 of p.v (variant 1) does not hold: {"word":"a"} renders ["echo","second","a"]; the example says ["echo","first","a"]",
      ]
    `);
  });

  it('checking an example runs nothing', async () => {
    const marker = join(workDir, 'example-ran');
    const r = await loadPacks(
      {
        text: onePack(`      - id: touch
        argv: [touch, '{{file}}']
        inputs: { file: { type: string, pattern: "^[^-]", description: a file } }
        examples: [{ args: { file: ${JSON.stringify(marker)} }, argv: [touch, ${JSON.stringify(marker)}] }]
`),
        file: join(workDir, 'workspace.yaml'),
      },
      { probe: true },
    );
    expect(r.ok).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});
