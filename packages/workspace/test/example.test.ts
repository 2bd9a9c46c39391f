// The example workspace (fixtures/workspaces/demo) walked through as the seed's demo transcript.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatIssue, listCommands, runPackCommand } from '@harness/packs';
import { fixturesDir, needs, tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { auditEvent, createMemoryApprovalStore, decide, loadWorkspace } from '../src/index';

const withJq = needs('jq');
// A copy, so the write step edits a scratch file, never the fixture.
const scratch = tempDir('packs-demo-');
afterAll(() => scratch.cleanup());
cpSync(join(fixturesDir, 'workspaces', 'demo'), scratch.path, { recursive: true });
const loaded = await loadWorkspace({ file: join(scratch.path, 'workspace.yaml') });
if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
const ws = loaded.workspace;

describe('the example workspace', () => {
  it('the fixture loads (with requirement probing) [CP-79]', async () => {
    const r = await loadWorkspace({ file: join(fixturesDir, 'workspaces', 'demo', 'workspace.yaml') });
    expect(r.ok).toBe(true);
  });

  it('declares a json-tools pack and the agents: reader holds pack:json-tools, editor the strict write by name [CP-82]', () => {
    expect(ws.agents.map((a) => [a.id, a.grants])).toEqual([
      ['reader', ['pack:json-tools', 'pack:repo', 'pack:echo']],
      ['editor', ['json-tools.edit-in-place', 'repo.tag']],
      // The embedded default's agent: every read plus the writes the demo shows governed.
      [
        'demo',
        ['pack:json-tools', 'json-tools.edit-in-place', 'pack:repo', 'repo.tag', 'pack:echo', 'notes.append'],
      ],
    ]);
    expect(decide(ws, { commandId: 'notes.append', caller: 'demo' })).toMatchObject({
      tier: 'strict',
      outcome: 'approval_required',
    });
    const reader = ws.agents[0]?.commands ?? [];
    expect(reader).toEqual(
      [...(withJq.present ? ['json-tools.query'] : []), 'echo.argv', 'repo.grep', 'repo.log'].sort(),
    );
    if (withJq.present)
      expect(decide(ws, { commandId: 'json-tools.edit-in-place', caller: 'editor' }).tier).toBe('strict');
  });

  // The case without jq: it runs where jq is absent (.ci/run runs this suite once without it).
  it.skipIf(withJq.present)('without jq, json-tools is left out with a warning naming jq', () => {
    expect(ws.unavailable.map((u) => u.binary)).toEqual(['jq']);
  });

  it('lists manifest rows for the reader', () => {
    const rows = listCommands(ws, { commands: ws.agents[0]?.commands ?? [] });
    expect(rows.find((r) => r.id === 'repo.log')).toMatchObject({
      effect: 'read',
      inputs: { type: 'object', required: ['count'], properties: { count: { type: 'integer' } } },
    });
  });

  withJq.it('a read command runs unattended [CP-83]', async () => {
    const d = decide(ws, { commandId: 'json-tools.query', caller: 'reader' });
    expect([d.outcome, d.code]).toEqual(['allow', 'read_auto_approved']);
    const r = await runPackCommand(ws, 'json-tools.query', {
      filter: '[.[].name]',
      file: 'data/people.json',
    });
    expect(r.ok && r.outcome.output).toEqual(['Ada', 'Grace', 'Linus']);
  });

  withJq.it('a write command stops at a governance decision, and runs once approved [CP-84]', async () => {
    const approvals = createMemoryApprovalStore();
    const args = { filter: 'map(.name)', file: 'data/people.json' };
    const d = decide(ws, { commandId: 'json-tools.edit-in-place', caller: 'editor', args, approvals });
    expect(d).toMatchObject({ outcome: 'approval_required', code: 'strict_tier', approvalId: 'apr_1' });
    expect(
      auditEvent(ws, 'json-tools.edit-in-place', { agent: 'editor', decision: d })?.payload.decision,
    ).toBe('approval_required');
    approvals.approve('apr_1');
    const again = decide(ws, { commandId: 'json-tools.edit-in-place', caller: 'editor', args, approvals });
    expect(again.outcome).toBe('allow');
    const r = await runPackCommand(ws, 'json-tools.edit-in-place', args);
    expect(r.ok && r.outcome.status).toBe('ok');
    const after = await runPackCommand(ws, 'json-tools.query', { filter: '.', file: 'data/people.json' });
    expect(after.ok && after.outcome.output).toEqual(['Ada', 'Grace', 'Linus']);
  });

  it('the readonly pack refuses the declared write and prints the reason [CP-85]', () => {
    const d = decide(ws, { commandId: 'repo.tag', caller: 'editor', args: { name: 'v1' } });
    expect([d.outcome, d.code]).toEqual(['deny', 'readonly_tier']);
    expect(d.reason).toMatchInlineSnapshot(
      `"command:call:repo:tag denied: pack "repo" is readonly and repo.tag declares effects write"`,
    );
  });

  it('reads of the readonly pack run: repo.grep over the data file', async () => {
    expect(decide(ws, { commandId: 'repo.grep', caller: 'reader' }).outcome).toBe('allow');
    const r = await runPackCommand(ws, 'repo.grep', { pattern: 'Grace' });
    // (CP-84 may have rewritten the copy already; the line number and layout vary, the match does not.)
    expect(r.ok && r.outcome.output).toEqual([expect.stringMatching(/^data\/people\.json:\d+:.*"Grace"/)]);
  });

  withJq.it(
    'a filter of "; rm -rf /" runs harmlessly and produces an ordinary jq error [CP-86]',
    async () => {
      const r = await runPackCommand(ws, 'json-tools.query', {
        filter: '; rm -rf /',
        file: 'data/people.json',
      });
      expect(r.ok && [r.outcome.status, r.outcome.exitCode]).toEqual(['exit_nonzero', 3]);
      expect(r.ok && r.outcome.message).toMatch(
        /^json-tools\.query exited with code 3: jq: error: syntax error/,
      );
    },
  );

  it('the injection value reaches node as one inert argument (fallback without jq) [CP-86]', async () => {
    const r = await runPackCommand(ws, 'echo.argv', { value: '; rm -rf /' });
    expect(r.ok && r.outcome.output).toEqual(['; rm -rf /']);
  });
});

withJq.describe('the example workspace: json-tools.edit-in-place [SEC-7]', () => {
  const box = tempDir('packs-example-');
  afterAll(() => box.cleanup());
  cpSync(join(fixturesDir, 'workspaces', 'demo'), box.path, { recursive: true });

  it('refuses a filter that jq would read as an option, and the file keeps its bytes', async () => {
    const r = await loadWorkspace({ file: join(box.path, 'workspace.yaml') });
    if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('\n'));
    expect(r.warnings.filter((w) => w.code === 'argv_safety')).toEqual([]);
    const before = readFileSync(join(box.path, 'data', 'people.json'));
    for (const filter of ['-f', '--from-file', '-n']) {
      const run = await runPackCommand(r.workspace, 'json-tools.edit-in-place', {
        filter,
        file: 'data/people.json',
      });
      expect(run.ok ? run.outcome.status : run.issues[0]?.code, filter).not.toBe('ok');
      expect(readFileSync(join(box.path, 'data', 'people.json')), filter).toEqual(before);
    }
    // A real filter still edits the file.
    const edit = await runPackCommand(r.workspace, 'json-tools.edit-in-place', {
      filter: 'map(.name)',
      file: 'data/people.json',
    });
    expect(edit.ok && edit.outcome.status).toBe('ok');
    expect(JSON.parse(readFileSync(join(box.path, 'data', 'people.json'), 'utf8'))).toEqual(
      (JSON.parse(before.toString('utf8')) as { name: string }[]).map((p) => p.name),
    );
  });
});
