// A person's decision through the approvals API (docs/host.md, "Embedding"): what can be decided,
// and how an id that cannot be is answered, as data worded once for every place a person decides.
// A real instance and SQLite store.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalRequest } from '@harness/store';
import { tempDir } from '@harness/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideApproval } from '../src/api';
import { decideAsPerson, notDecidableText, withApprovals } from '../src/approvals';
import { initInstance, openStore } from '../src/instance';

const WORKSPACE = `version: 1
command_packs:
  - id: files
    permission: strict
    commands:
      - id: touch
        argv: [touch, '--', '{{file}}']
        effects: write
agents:
  - id: editor
    grants: [files.touch]
`;

let dir: ReturnType<typeof tempDir>;
let instance: string;
beforeEach(async () => {
  dir = tempDir('host-approvals-decide-');
  writeFileSync(join(dir.path, 'workspace.yaml'), WORKSPACE);
  instance = join(dir.path, 'instance');
  await initInstance(instance, join(dir.path, 'workspace.yaml'));
});
afterEach(() => dir.cleanup());

/** Records one pending request, asked `agoMs` ago and living `ttlMs`; its id. */
async function requested(agoMs: number, ttlMs: number): Promise<string> {
  const request: ApprovalRequest = {
    key: `k-${agoMs}-${ttlMs}`,
    command: 'files.touch',
    agent: 'editor',
    run: 'run-1',
    action: 'command:call:files:touch',
    reason: 'strict tier: every call needs explicit approval',
    argNames: ['file'],
    args: { file: 'a.txt' },
    argv: ['touch', '--', 'a.txt'],
    tier: 'strict',
    ttlMs,
    now: new Date(Date.now() - agoMs),
  };
  const store = await openStore(instance);
  try {
    return (await store.requestApproval(request)).id;
  } finally {
    await store.close();
  }
}

describe('a decision through the approvals API', () => {
  it('decides a pending approval with time left, recording who decided and where', async () => {
    const id = await requested(0, 60_000);
    const open = await withApprovals(instance, (a) => a.decidable(id));
    expect(open).toMatchObject({ ok: true, record: { id, status: 'pending' } });
    expect(open.ok && open.msLeft > 0 && open.msLeft <= 60_000).toBe(true);
    const decided = await withApprovals(instance, (a) =>
      a.decide(id, 'approved', { by: 'person:ann', via: 'console' }),
    );
    expect(decided).toMatchObject({
      ok: true,
      record: { id, status: 'approved', decided_by: 'person:ann', decided_via: 'console' },
    });
  });

  it('answers an id no approval has as not_found, on the command line naming the instance and the list command', async () => {
    const refusal = await withApprovals(instance, (a) =>
      a.decide('apr-nope', 'denied', { by: 'person:ann' }),
    );
    expect(refusal).toEqual({ ok: false, code: 'not_found', id: 'apr-nope' });
    expect(
      await decideAsPerson(instance, 'apr-nope', 'denied', 'person:ann', 'harness approvals list'),
    ).toEqual({
      ok: false,
      message: `no approval has the id apr-nope on the instance ${instance}; the pending ones are listed by \`harness approvals list\``,
    });
  });

  it('answers an approval decided already as not_pending with its status, and decides it only once', async () => {
    const id = await requested(0, 60_000);
    await withApprovals(instance, (a) => a.decide(id, 'denied', { by: 'person:ann', via: 'cli' }));
    const again = await withApprovals(instance, (a) => a.decide(id, 'approved', { by: 'person:bob' }));
    expect(again).toMatchObject({ ok: false, code: 'not_pending', id, status: 'denied' });
    expect(!again.ok && notDecidableText(again)).toBe(
      `approval ${id} is denied, not pending; only a pending approval can be decided (see \`loom approvals list\`)`,
    );
  });

  it('counts a pending approval whose time is up as expired, though its row was not marked so yet', async () => {
    const id = await requested(120_000, 60_000);
    const open = await withApprovals(instance, (a) => a.decidable(id));
    expect(open).toMatchObject({
      ok: false,
      code: 'not_pending',
      status: 'expired',
      record: { status: 'pending' },
    });
    expect(await decideAsPerson(instance, id, 'approved', 'person:ann', 'loom approvals list')).toEqual({
      ok: false,
      message: `approval ${id} is expired, not pending; only a pending approval can be decided (the pending ones are listed by \`loom approvals list\`)`,
    });
  });

  it('keeps decideApproval throwing the store error for an id that cannot be decided, with the same words', async () => {
    await expect(decideApproval(instance, 'apr-nope', 'approved', 'person:ann')).rejects.toMatchObject({
      name: 'StoreError',
      code: 'approval_not_found',
      message: 'no approval has the id apr-nope; see `loom approvals list`',
    });
  });
});
