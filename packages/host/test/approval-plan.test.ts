// An approval is bound to the exact plan it approves (docs/host.md, "Approvals"): the SHA-256 of what
// the call would run. A real instance and store, workspaces on disk, real processes: the template
// edited between the approval and the run, and the program on PATH replaced, are each refused and
// audited; the plan approved runs.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '@harness/store';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideApproval } from '../src/api';
import type { CommandHost } from '../src/host';
import { initInstance } from '../src/instance';
import { hostFor, hostOver } from './helpers';

const SCOPE = { run: 'run-p', agent: 'scribe' };

/** A workspace of one strict command `notes.write` running `argv`, with `env` on the pack. */
function workspaceText(argv: string, env = ''): string {
  return `version: 1
sandbox_mode: off
command_packs:
  - id: notes
    permission: strict
${env}    commands:
      - id: write
        argv: ${argv}
        effects: write
agents:
  - id: scribe
    grants: [notes.write]
`;
}

let dir: ReturnType<typeof tempDir>;
let instance: string;
let store: Store;
let host: CommandHost;

async function start(text: string): Promise<void> {
  writeFileSync(join(dir.path, 'workspace.yaml'), text);
  instance = join(dir.path, 'instance');
  await initInstance(instance, join(dir.path, 'workspace.yaml'));
  ({ host, store } = await hostFor(instance, SCOPE));
}

/** A host over the same store serving `text` instead: the workspace as edited since. */
async function edited(text: string): Promise<CommandHost> {
  const file = join(dir.path, 'edited.yaml');
  writeFileSync(file, text);
  return hostOver(store, SCOPE, file);
}

const write = (h: CommandHost, line: string) =>
  h.run({ op: 'run', command: 'notes.write', args: { line } }, {});

/** The approval id a held call's answer names. */
const approvalOf = (answer: { body: unknown }): string =>
  (answer.body as { approval: { id: string } }).approval.id;

beforeEach(() => {
  dir = tempDir('host-approval-plan-');
});
afterEach(async () => {
  await store.close();
  dir.cleanup();
});

describe('an approval is bound to the plan it approves', () => {
  it('refuses the call once the template changed since the approval (plan_changed), audits both, and asks anew', async () => {
    await start(workspaceText(`[echo, 'v1:{{line}}']`));
    const held = await write(host, 'hello');
    expect(held).toMatchObject({ reason: 'approval_required' });
    const id = approvalOf(held);
    const approved = await store.getApproval(id);
    expect(approved?.plan_hash).toMatch(/^[0-9a-f]{64}$/);
    await decideApproval(instance, id, 'approved', 'person:ann');

    const later = await edited(workspaceText(`[echo, 'v2:{{line}}']`));
    const refused = await write(later, 'hello');
    expect(refused).toMatchObject({
      ok: false,
      code: 'refused',
      reason: 'plan_changed',
      mayHaveLanded: false,
    });
    expect((refused.body as { message: string }).message).toMatch(
      new RegExp(
        `^notes\\.write: approval ${id} was given for plan ${approved?.plan_hash?.slice(0, 12)}, and this call would now run plan [0-9a-f]{12}: `,
      ),
    );
    const row = (await store.tailAudit(20)).filter((e) => e.phase === 'run').at(-1);
    expect(row).toMatchObject({ command: 'notes.write', outcome: 'refused', reason: 'plan_changed' });
    expect(row?.payload).toMatchObject({
      approval: { id, plan_hash: approved?.plan_hash },
      approved_by: 'person:ann',
    });
    // Used up: the identical call asks a person again, for the plan it runs now.
    const again = await write(later, 'hello');
    expect(again).toMatchObject({ reason: 'approval_required' });
    expect(approvalOf(again)).not.toBe(id);
    expect((await store.getApproval(approvalOf(again)))?.plan_hash).not.toBe(approved?.plan_hash);
  });

  it('refuses the call once the program on PATH resolves to another file', async () => {
    const first = join(dir.path, 'bin-a');
    const second = join(dir.path, 'bin-b');
    for (const [d, word] of [
      [first, 'a'],
      [second, 'b'],
    ] as const) {
      mkdirSync(d);
      writeFileSync(join(d, 'notetool'), `#!/bin/sh\necho ${word}:"$1"\n`);
      chmodSync(join(d, 'notetool'), 0o755);
    }
    await start(
      workspaceText(`[notetool, '{{line}}']`, `    env: { PATH: "${first}:${second}:/usr/bin:/bin" }\n`),
    );
    const held = await write(host, 'x');
    const id = approvalOf(held);
    await decideApproval(instance, id, 'approved', 'person:ann');
    rmSync(join(first, 'notetool'));
    const refused = await write(host, 'x');
    expect(refused).toMatchObject({ reason: 'plan_changed' });
    const rows = (await store.tailAudit(20)).filter((e) => e.phase === 'run');
    expect(rows.map((r) => r.reason)).toEqual(['approval_required', 'plan_changed']);
  });

  it('runs the plan approved, its audit row naming the approval and the plan hash', async () => {
    await start(workspaceText(`[echo, 'v1:{{line}}']`));
    const id = approvalOf(await write(host, 'hello'));
    await decideApproval(instance, id, 'approved', 'person:ann');
    const ran = await write(host, 'hello');
    expect(ran).toMatchObject({ ok: true, code: 'ok' });
    const row = (await store.tailAudit(20)).filter((e) => e.phase === 'run').at(-1);
    const record = await store.getApproval(id);
    expect(record?.status).toBe('consumed');
    expect(row?.payload).toMatchObject({
      approval: { id, plan_hash: record?.plan_hash },
      approved_by: 'person:ann',
    });
  });
});
