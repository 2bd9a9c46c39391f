// A credential transformed by the command that receives it (`$ENV.TOKEN|@base64`, a reversal, a
// split) passes redaction, which matches only the literal value. So the output of a command whose
// pack's env holds a credential carries the atom `credential:<name>`, unless the command declares
// `credential_output_unlabeled` (and `packs check` warns); and `packs check` warns where a caller's
// value reaches such a command as code. Real jq for the transformations.
import { needs } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { codeInputs } from '../src/credential-flow';
import { credentialsFrom, formatIssue, listCommands, loadPacks, runPackCommand } from '../src/index';
import { loadOk, onePack } from './helpers';

const withJq = needs('jq').it;

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';
const credentials = credentialsFrom({ gh_token: TOKEN });
const ENV = `    credentials_ref: gh_token
    env: { TOKEN: '{{credential.gh_token}}' }
`;

const warningsOf = async (text: string): Promise<string[]> => {
  const r = await loadPacks({ text, file: 'workspace.yaml' }, { probe: false });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.warnings.filter((w) => w.code === 'credential_flow').map(formatIssue);
};

describe('the output of a command that receives a credential', () => {
  it('carries the credential atom beside its declared label, in the manifest row [SEC-3]', async () => {
    const ws = await loadOk(
      onePack(
        `      - id: q
        argv: [jq, -n, '{{filter}}']
        effects: read
        label: { confidentiality: [team] }
      - id: plain
        argv: [echo, hi]
        effects: read`,
        ENV,
      ),
    );
    expect(listCommands(ws).map((r) => [r.id, r.ifc])).toEqual([
      ['p.q', { confidentiality: ['team', 'credential:gh_token'], integrity: [] }],
      ['p.plain', { confidentiality: ['credential:gh_token'], integrity: [] }],
    ]);
  });

  withJq(
    'is printed transformed by jq, past redaction: why the label, not redaction, must hold it',
    async () => {
      const ws = await loadOk(
        onePack(
          `      - id: q
        argv: [jq, -rn, '{{filter}}']
        effects: read`,
          ENV,
        ),
      );
      const b64 = Buffer.from(TOKEN).toString('base64');
      for (const [filter, printed] of [
        ['$ENV.TOKEN|@base64', b64],
        ['$ENV.TOKEN|ascii_downcase', TOKEN.toLowerCase()],
        ['$ENV.TOKEN|explode|reverse|implode', [...TOKEN].reverse().join('')],
      ] as const) {
        const r = await runPackCommand(ws, 'p.q', { filter }, { credentials });
        expect(r.ok && r.outcome.status === 'ok' && r.outcome.output).toBe(`${printed}\n`);
      }
      expect(listCommands(ws)[0]?.ifc).toEqual({ confidentiality: ['credential:gh_token'], integrity: [] });
    },
  );

  it('keeps only its declared label when the command opts out, and packs check says so [SEC-3]', async () => {
    const text = onePack(
      `      - id: list
        argv: [gh, pr, list]
        effects: read
        credential_output_unlabeled: gh pr list prints pull requests, never the token`,
      ENV,
    );
    const ws = await loadOk(text);
    expect(listCommands(ws)[0]?.ifc).toBeUndefined();
    expect(await warningsOf(text)).toEqual([
      'workspace.yaml:9:38: this command receives credential gh_token, and its output is NOT labelled credential:gh_token ("gh pr list prints pull requests, never the token"): a run whose ceiling does not admit the credential still sees everything it prints; redaction removes only the literal value',
    ]);
  });

  it('refuses an empty opt-out reason', async () => {
    const r = await loadPacks(
      {
        text: onePack(
          `      - id: list
        argv: [gh, pr, list]
        credential_output_unlabeled: '  '`,
          ENV,
        ),
        file: 'workspace.yaml',
      },
      { probe: false },
    );
    expect(r.ok ? [] : r.issues.map((i) => i.message)).toEqual([
      'command_packs[0].commands[0].credential_output_unlabeled: expected a reason why this output reveals no credential, not an empty string, found "  "; e.g. credential_output_unlabeled: "prints only the HTTP status"',
    ]);
  });

  it('is unchanged in a pack whose env holds no credential', async () => {
    const ws = await loadOk(
      onePack(`      - id: q\n        argv: [jq, -n, '{{filter}}']\n        effects: read`),
    );
    expect(listCommands(ws)[0]?.ifc).toBeUndefined();
  });
});

describe('packs check: caller-supplied code in a command that receives a credential', () => {
  it('warns for a jq filter, naming the credential, the atom and the fix [SEC-3]', async () => {
    const text = onePack(
      `      - id: q
        argv: [jq, -n, '{{filter}}']
        effects: read`,
      ENV,
    );
    expect(await warningsOf(text)).toEqual([
      'workspace.yaml:6:9: input "filter" reaches the program as code (jq reads its first operand as a program (a filter or script)) in a command that receives credential gh_token: a caller can compute on the credential ($ENV.TOKEN|@base64, a reversal, a split) and print it in a form redaction does not match; its output carries credential:gh_token, so only a run whose ceiling admits that sees it. Give the program text a fixed value, or the credential to another pack',
    ]);
  });

  it('warns louder when the same command also opts out of the label', async () => {
    const text = onePack(
      `      - id: q
        argv: [sh, -c, '{{script}}']
        credential_output_unlabeled: trusted
        effects: read`,
      ENV,
    );
    const warnings = await warningsOf(text);
    expect(warnings).toHaveLength(2);
    const code = warnings.find((w) => w.includes('input "script"'));
    expect(code).toContain('(sh runs the element after -c as a program)');
    expect(code).toContain('its output is unlabelled, so any run sees it');
    expect(warnings.find((w) => w !== code)).toContain(
      'its output is NOT labelled credential:gh_token ("trusted")',
    );
  });

  it('warns for nothing in a pack without credentials, or where the program text is fixed', async () => {
    expect(await warningsOf(onePack(`      - id: q\n        argv: [jq, -n, '{{filter}}']`))).toEqual([]);
    expect(await warningsOf(onePack(`      - id: q\n        argv: [jq, .name, '{{file}}']`, ENV))).toEqual(
      [],
    );
  });
});

describe('which inputs reach the program as code', () => {
  const inputs = (argv: string[], declared: Record<string, { code?: boolean }> = {}) => [
    ...codeInputs({ argv, inputs: declared }).keys(),
  ];

  it('an input declared code: true', () => {
    expect(inputs(['my-tool', '--query={{q}}'], { q: { code: true } })).toEqual(['q']);
  });

  it('the whole element after an interpreter code flag', () => {
    expect(inputs(['node', '-e', '{{js}}'])).toEqual(['js']);
    expect(inputs(['python3', '-c', '{{py}}', '{{arg}}'])).toEqual(['py']);
    expect(inputs(['/bin/bash', '-c', '{{s}}'])).toEqual(['s']);
    expect(inputs(['sed', '-e', '{{e}}', '{{file}}'])).toEqual(['e']);
  });

  it('the first operand of a filter program, past options and their values', () => {
    expect(inputs(['jq', '-r', '--arg', 'n', '{{name}}', '{{filter}}', '{{file}}'])).toEqual(['filter']);
    expect(inputs(['awk', '-F', ',', '{{prog}}'])).toEqual(['prog']);
    expect(inputs(['jq', '.items[]', '{{file}}'])).toEqual([]);
  });

  it('not a placeholder inside a larger element, nor an operand of another program', () => {
    expect(inputs(['node', '-e', 'console.log({{x}})'])).toEqual([]);
    expect(inputs(['grep', '-e', '{{pattern}}', 'file'])).toEqual([]);
  });
});
