// A credential transformed by a command that receives it: `$ENV.TOKEN|@base64` in a real jq filter
// passes redaction (it matches only the literal value), so the answer carries the credential's atom
// and a run whose ceiling does not admit it gets it withheld. Through the real CLI, its embedded
// broker, the credentials file and jq.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { needs } from '@harness/test-utils';
import { afterAll, expect, it } from 'vitest';
import { runCli, sandbox } from './helpers';

const box = sandbox();
afterAll(() => box.cleanup());

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789AB';
const B64 = Buffer.from(TOKEN).toString('base64');
const workspace = join(box.root, 'workspace.yaml');
writeFileSync(
  workspace,
  `version: 1
command_packs:
  - id: gh
    permission: open
    credentials_ref: gh_token
    env: { TOKEN: '{{credential.gh_token}}' }
    commands:
      - id: query
        argv: [jq, -rn, '{{filter}}']
        effects: read
      - id: query-unlabeled
        argv: [jq, -rn, '{{filter}}']
        effects: read
        credential_output_unlabeled: a test of the opt-out
agents:
  - id: agent
    grants: [pack:gh]
`,
);

const run = (args: string[]) => runCli(args, { home: box.home, timeoutMs: 60_000 });
const query = (command: string, ceiling: string) =>
  run([
    'call',
    'run_read_command',
    JSON.stringify({ command, args: { filter: '$ENV.TOKEN|@base64' } }),
    '--instance',
    box.instance,
    '--max-confidentiality',
    ceiling,
  ]);

needs('jq').describe('a credential printed in another form by the command that receives it [SEC-3]', () => {
  it('is withheld from a run whose ceiling does not admit credential:gh_token, and shown to one that does', async () => {
    const created = await run([
      'call',
      'list_commands',
      '--instance',
      box.instance,
      '--workspace',
      workspace,
      '--agent',
      'agent',
    ]);
    expect(created.code, created.stderr).toBe(0);
    writeFileSync(join(box.instance, 'credentials.json'), JSON.stringify({ gh_token: TOKEN }), {
      mode: 0o600,
    });

    for (const ceiling of ['', 'team']) {
      const r = await query('gh.query', ceiling);
      expect(r.code, r.stderr).toBe(0);
      const result = JSON.parse(r.stdout);
      expect(result.entry).toEqual({ status: 'withheld', reasonCode: 'cfc_ceiling_exceeded' });
      expect(result.outcome).toEqual({ withheld: true, mayHaveLanded: false });
      expect(r.stdout).not.toContain(B64);
      expect(r.stdout).not.toContain(TOKEN);
    }

    const admitted = await query('gh.query', 'credential:gh_token');
    expect(JSON.parse(admitted.stdout).entry).toMatchObject({
      status: 'admitted',
      value: { output: `${B64}\n` },
    });
  }, 120_000);

  it('reaches every run when the command opts out with credential_output_unlabeled: the risk it declares', async () => {
    const r = await query('gh.query-unlabeled', '');
    expect(JSON.parse(r.stdout).entry).toMatchObject({ status: 'admitted', value: { output: `${B64}\n` } });
  }, 60_000);

  it('packs check prints a warning for the filter input and for the opt-out', async () => {
    const r = await run(['packs', 'check', workspace]);
    expect(r.code, r.stderr).toBe(0);
    // Only the credential warnings: other checks may warn about the same entries.
    const credentialWarnings = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('warning: ') && l.includes('receives credential'));
    expect(credentialWarnings).toEqual([
      `warning: ${workspace}:8:9: input "filter" reaches the program as code (jq reads its first operand as a program (a filter or script)) in a command that receives credential gh_token: a caller can compute on the credential ($ENV.TOKEN|@base64, a reversal, a split) and print it in a form redaction does not match; its output carries credential:gh_token, so only a run whose ceiling admits that sees it. Give the program text a fixed value, or the credential to another pack`,
      `warning: ${workspace}:11:9: input "filter" reaches the program as code (jq reads its first operand as a program (a filter or script)) in a command that receives credential gh_token: a caller can compute on the credential ($ENV.TOKEN|@base64, a reversal, a split) and print it in a form redaction does not match; its output is unlabelled, so any run sees it. Give the program text a fixed value, or the credential to another pack`,
      `warning: ${workspace}:14:38: this command receives credential gh_token, and its output is NOT labelled credential:gh_token ("a test of the opt-out"): a run whose ceiling does not admit the credential still sees everything it prints; redaction removes only the literal value`,
    ]);
  });
});
