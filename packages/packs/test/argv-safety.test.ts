// `packs check` warnings for what a literal "--" cannot protect. The example workspace's
// edit-in-place wrapper attacked with a filter that jq would read as an option is in
// @harness/workspace's example test.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPacks } from '../src/index';
import { onePack, workDir } from './helpers';

const warningsOf = async (text: string): Promise<string[]> => {
  const r = await loadPacks({ text, file: join(workDir, 'workspace.yaml') }, { probe: false });
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('\n'));
  return r.warnings.filter((w) => w.code === 'argv_safety').map((w) => w.message);
};

describe('packs check: allow_leading_dash [SEC-10] [D4]', () => {
  it('warns that find does not honour "--"', async () => {
    const warnings = await warningsOf(
      onePack(`      - id: list
        argv: [find, --, '{{dir}}', -type, f]
        inputs: { dir: { type: string, allow_leading_dash: true } }
        effects: read`),
    );
    expect(warnings).toMatchInlineSnapshot(`
      [
        "input "dir" may start with "-", but find does not honour "--" (\`find -- -delete\` deletes); remove allow_leading_dash",
      ]
    `);
  });

  it('warns that a wrapper hands the value on past its own "--" [SEC-7]', async () => {
    const warnings = await warningsOf(
      onePack(`      - id: edit
        argv: [node, -e, 'require("child_process").execFileSync("jq", [process.argv[1]])', --, '{{filter}}']
        inputs: { filter: { type: string, allow_leading_dash: true } }
        effects: read`),
    );
    expect(warnings).toMatchInlineSnapshot(`
      [
        "input "filter" may start with "-", but node runs something else: its "--" ends only its own options, and the value reaches the next program as it is, where "-f" or "--delete" is an option; remove allow_leading_dash, or make the wrapped program honour "--"",
      ]
    `);
  });

  it('says when allow_leading_dash has no effect (no literal "--" before the value), and states the assumption otherwise', async () => {
    const warnings = await warningsOf(
      onePack(`      - id: tag
        argv: [git, tag, '{{name}}', --, '{{name}}']
        inputs: { name: { type: string, allow_leading_dash: true } }
        effects: write`),
    );
    expect(warnings).toMatchInlineSnapshot(`
      [
        "allow_leading_dash of input "name" has no effect here: no literal "--" comes before this element, so a value starting with "-" is still refused",
        "input "name" may start with "-" after a literal "--": safe only because git honours "--"; check that it does",
      ]
    `);
  });

  it('says nothing for inputs that do not declare it', async () => {
    expect(
      await warningsOf(onePack(`      - { id: g, argv: [grep, -rn, --, '{{p}}', data], effects: read }`)),
    ).toEqual([]);
  });

  it('keeps allow_leading_dash out of the schema the model sees', async () => {
    const r = await loadPacks(
      {
        text: onePack(`      - id: tag
        argv: [git, tag, --, '{{name}}']
        inputs: { name: { type: string, allow_leading_dash: true } }
        effects: write`),
        file: join(workDir, 'workspace.yaml'),
      },
      { probe: false },
    );
    if (!r.ok) throw new Error('load failed');
    const command = r.packs.packs[0]?.commands[0];
    expect(command?.inputs).toEqual({ name: { type: 'string' } });
    expect(command?.leadingDash).toEqual(['name']);
  });
});
