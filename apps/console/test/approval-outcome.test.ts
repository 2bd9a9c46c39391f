// An approval's outcome is the audit event of the run it allowed, however much was audited since.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AuditEventInput, openStoreTarget, type Store } from '@harness/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalOutcomes } from '../src/server/approvals/outcome';

const event = (command: string, payload: Record<string, unknown>): AuditEventInput => ({
  run: 'run-1',
  actor: 'agent:tester',
  job: null,
  command,
  action: `command:call:${command}`,
  phase: 'run',
  outcome: 'allow',
  code: 'ok',
  reason: null,
  payload,
});

describe('approval outcomes', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-outcome-'));
    store = await openStoreTarget({ kind: 'sqlite', file: join(dir, 'loom.db') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = (key: string) =>
    store.requestApproval({
      ...{ key, command: 'notes.append', agent: 'tester', run: 'run-1', tier: 'strict', ttlMs: 60_000 },
      ...{ action: 'command:call:notes.append', reason: 'strict tier', argNames: [], args: {}, argv: null },
    });

  async function consumedApproval(key: string) {
    const asked = await ask(key);
    await store.decideApproval(asked.id, 'approved', 'person', 60_000);
    const taken = await store.takeApproval(key);
    if (taken === undefined) throw new Error('the approval was not consumed');
    return taken;
  }

  it('finds the run of an approval after thousands of later audit events of other commands', async () => {
    const approval = await consumedApproval('k1');
    // A call of the same command that ended while the approved one ran comes first.
    await store.appendAudit(event('notes.append', { decision: 'allow', run: { exitCode: 0 } }));
    const seq = await store.appendAudit(
      event('notes.append', { decision: 'allow', approvalId: approval.id, run: { exitCode: 3 } }),
    );
    for (let i = 0; i < 2_500; i++) await store.appendAudit(event('notes.read', { decision: 'allow' }));

    const outcomes = await approvalOutcomes(store, [approval]);
    expect(outcomes.get(approval.id)).toMatchObject({ seq, outcome: 'allow', code: 'ok', exitCode: 3 });
  });

  it("says a run whose tests failed as its pack names it, with the audit's outcome and reason kept", async () => {
    const approval = await consumedApproval('k6');
    await store.appendAudit({
      ...event('notes.check', { decision: 'allow', approvalId: approval.id, run: { exitCode: 1 } }),
      ...{ command: 'notes.append', outcome: 'failed', code: 'failed', reason: 'tests_failed' },
    });
    const outcomes = await approvalOutcomes(store, [approval]);
    expect(outcomes.get(approval.id)).toMatchObject({
      outcome: 'failed',
      code: 'failed',
      reason: 'tests_failed',
      summary: 'tests failed',
      exitCode: 1,
    });
  });

  it('looks up an outcome once: a refresh reads the audit log only for approvals whose run is not found yet', async () => {
    const ran = await consumedApproval('k4');
    const waiting = await consumedApproval('k5');
    await store.appendAudit(
      event('notes.append', { decision: 'allow', approvalId: ran.id, run: { exitCode: 0 } }),
    );
    const queries: (string | undefined)[] = [];
    const queryAudit = store.queryAudit.bind(store);
    store.queryAudit = (query) => {
      queries.push(query.since);
      return queryAudit(query);
    };
    const first = await approvalOutcomes(store, [ran, waiting]);
    expect([...first.keys()]).toEqual([ran.id]);
    expect(queries).toHaveLength(2);

    queries.length = 0;
    const again = await approvalOutcomes(store, [ran, waiting]);
    expect(again.get(ran.id)).toEqual(first.get(ran.id));
    expect(queries).toEqual([waiting.consumed_at]);

    await store.appendAudit(
      event('notes.append', { decision: 'allow', approvalId: waiting.id, run: { exitCode: 4 } }),
    );
    queries.length = 0;
    const later = await approvalOutcomes(store, [ran, waiting]);
    expect(later.get(waiting.id)).toMatchObject({ exitCode: 4 });
    expect(queries).toEqual([waiting.consumed_at]);
    queries.length = 0;
    await approvalOutcomes(store, [ran, waiting]);
    expect(queries).toEqual([]);
  });

  it('answers no outcome for a consumed approval whose run left no event, and none for a pending one', async () => {
    const approval = await consumedApproval('k2');
    await store.appendAudit(event('notes.append', { decision: 'allow', run: { exitCode: 0 } }));
    const pending = await ask('k3');
    const outcomes = await approvalOutcomes(store, [approval, pending]);
    expect([...outcomes.keys()]).toEqual([]);
  });
});
