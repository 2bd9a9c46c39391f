// `unattended_when_confined`: a write under `cautious` runs without a person's approval only when it
// runs confined on this machine — writing only its project (its .git and .harness read-only), no
// network, no socket, no credential. Each way out of the project is shown asking again, and a real
// unattended run is shown unable to reach what the confinement keeps from it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectSandbox } from '@harness/exec';
import { formatIssue, runPackCommand } from '@harness/packs';
import { needs, sandboxMechanism } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { createMemoryApprovalStore, decide, loadWorkspace, type Workspace } from '../src/index';
import { loadErrors, workDir } from './helpers';

const mechanism = needs(sandboxMechanism(detectSandbox()));
const withMechanism = mechanism.it;

const home = join(workDir, 'unattended-home');
const project = join(home, 'proj');
mkdirSync(join(project, '.git'), { recursive: true });
writeFileSync(join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');

// One pack per way a listed write could leave its project, and the one that stays inside it.
const workspace = (extra = '', mode = '') => `${mode}command_packs:
  - id: p
    cwd: ${JSON.stringify(project)}
    sandbox: { filesystem: { write: [.] }, network: none }
    unattended_when_confined: [test, fetch, commit, cache, read_only]
    commands:
      - { id: test, argv: [sh, -c, 'echo ran > out.txt; echo tests passed'], effects: write }
      - { id: fetch, argv: ['true'], effects: write, sandbox: { network: host } }
      - { id: commit, argv: ['true'], effects: write, sandbox: { filesystem: { write: [., .git] } } }
      - { id: cache, argv: ['true'], effects: write, sandbox: { filesystem: { write: [., ~/.cache] } } }
      - { id: read_only, argv: ['true'], effects: read }
      - { id: other, argv: ['true'], effects: write }
${extra}agents:
  - id: coder
    grants: [p.test, p.fetch, p.commit, p.cache, p.read_only, p.other]
`;

async function load(text: string, sandboxPath?: string) {
  const r = await loadWorkspace(
    { text, file: join(project, '.harness', 'workspace.yaml') },
    { probe: false, home, ...(sandboxPath === undefined ? {} : { sandboxPath }) },
  );
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r;
}

const gate = (ws: Workspace, id: string) =>
  decide(ws, { commandId: id, caller: 'coder', approvals: createMemoryApprovalStore() });

describe('confined writes run unattended', () => {
  withMechanism(
    'allows a listed write that runs confined without asking anyone, and keeps asking for an unlisted one',
    async () => {
      const { workspace: ws } = await load(workspace());
      expect(gate(ws, 'p.test')).toMatchObject({ outcome: 'allow', code: 'confined_write' });
      expect(gate(ws, 'p.test').reason).toBe(
        'command:call:p:test allowed: tier cautious, effects write, runs confined (writes only its project, no network, no secret): no approval needed',
      );
      expect(gate(ws, 'p.other')).toMatchObject({
        outcome: 'approval_required',
        code: 'write_needs_approval',
      });
    },
  );

  withMechanism(
    'asks a person for a listed write that has the network, writes .git or writes outside the project, and says why at load',
    async () => {
      const r = await load(workspace());
      for (const id of ['p.fetch', 'p.commit', 'p.cache']) {
        expect(gate(r.workspace, id)).toMatchObject({ outcome: 'approval_required' });
      }
      const said = r.warnings.filter((w) => w.code === 'not_confined').map((w) => w.message);
      expect(said).toEqual([
        'p.fetch is listed in unattended_when_confined but asks a person for each call: it has the network (network: host)',
        "p.commit is listed in unattended_when_confined but asks a person for each call: it writes the project's .git, which a person later trusts unconfined",
        `p.cache is listed in unattended_when_confined but asks a person for each call: it writes outside the project: ${join(home, '.cache')}`,
        'p.read_only is listed in unattended_when_confined but asks a person for each call: it is a read, not a write under cautious: the tier decides',
      ]);
    },
  );

  it('asks a person on a machine where nothing confines it (no sandbox mechanism), and says so', async () => {
    const r = await load(workspace(), '/nonexistent-bin');
    expect(gate(r.workspace, 'p.test')).toMatchObject({
      outcome: 'approval_required',
      code: 'write_needs_approval',
    });
    expect(r.warnings.find((w) => w.message.startsWith('p.test '))?.message).toBe(
      'p.test is listed in unattended_when_confined but asks a person for each call: it runs unconfined on this machine (no sandbox block, sandbox: false, sandbox_mode off, or no working sandbox mechanism)',
    );
  });

  it('asks a person under sandbox_mode off', async () => {
    const r = await load(workspace('', 'sandbox_mode: off\n'));
    expect(gate(r.workspace, 'p.test').outcome).toBe('approval_required');
  });

  withMechanism('asks a person for a listed write whose environment holds a credential', async () => {
    const text = workspace()
      .replace(
        '    unattended_when_confined',
        '    credentials_ref: token\n    env: { TOKEN: "{{credential.token}}" }\n    unattended_when_confined',
      )
      .replace(
        '    commands:\n      - { id: test',
        '    credential_output_unlabeled: true\n    commands:\n      - { id: test',
      );
    const r = await loadWorkspace(
      {
        text: text.replace('    credential_output_unlabeled: true\n', ''),
        file: join(project, '.harness', 'workspace.yaml'),
      },
      { probe: false, home },
    );
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(gate(r.workspace, 'p.test').outcome).toBe('approval_required');
    expect(r.warnings.find((w) => w.message.startsWith('p.test '))?.message).toBe(
      "p.test is listed in unattended_when_confined but asks a person for each call: its environment holds the credential token, a secret of the person's",
    );
  });

  withMechanism('asks under strict: the tier still decides', async () => {
    const r = await load(
      workspace().replace(
        '    unattended_when_confined',
        '    permission: strict\n    unattended_when_confined',
      ),
    );
    expect(gate(r.workspace, 'p.test')).toMatchObject({ outcome: 'approval_required', code: 'strict_tier' });
  });

  it('refuses an entry that names no command of the pack, naming those it has', async () => {
    const text = `command_packs:
  - id: p
    unattended_when_confined: [tset]
    commands:
      - { id: test, argv: ['true'], effects: write }
`;
    expect(await loadErrors(text)).toEqual([
      'workspace.yaml:3:32: unattended_when_confined entry "tset" names no command of pack "p"; expected one of test',
    ]);
  });

  withMechanism(
    'runs the unattended command confined: it writes its project, and cannot write .git',
    async () => {
      const text = workspace().replace(
        "argv: [sh, -c, 'echo ran > out.txt; echo tests passed']",
        "argv: [sh, -c, 'echo ran > out.txt; echo planted > .git/HEAD || echo refused; echo tests passed']",
      );
      const { workspace: ws } = await load(text);
      const run = await runPackCommand(ws, 'p.test', {});
      expect(run.ok && run.outcome.stdout).toContain('refused\ntests passed\n');
      expect(readFileSync(join(project, 'out.txt'), 'utf8')).toBe('ran\n');
      expect(readFileSync(join(project, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
      // The same command unconfined (sandbox_mode off): the write the wall stops lands.
      const off = await load(text.replace('command_packs:', 'sandbox_mode: off\ncommand_packs:'));
      expect(gate(off.workspace, 'p.test').outcome).toBe('approval_required');
      const loose = await runPackCommand(off.workspace, 'p.test', {});
      expect(loose.ok && loose.outcome.stdout).toBe('tests passed\n');
      expect(readFileSync(join(project, '.git', 'HEAD'), 'utf8')).toBe('planted\n');
      writeFileSync(join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
      expect(existsSync(join(project, '.harness', 'workspace.yaml'))).toBe(false);
    },
  );
});
