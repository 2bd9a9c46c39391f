// A compose and its audit event commit in one transaction: both are there, or neither is. Both
// stores: real SQLite files and a real PostgreSQL schema.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AuditEventInput, ComposeOutcome, Store } from '../src/types';
import { composeInput } from './inputs';
import { describeStores } from './stores';

const eventOf = (outcome: ComposeOutcome): AuditEventInput => ({
  run: 'r1',
  actor: 'agent:me',
  job: null,
  command: 'loom.compose',
  action: 'loom:call:compose',
  phase: 'run',
  outcome: outcome.kind === 'committed' || outcome.kind === 'replayed' ? 'ok' : 'rejected',
  code: outcome.kind === 'committed' || outcome.kind === 'replayed' ? 'ok' : outcome.kind,
  reason: null,
  payload: { kind: outcome.kind, loom_id: 'receipt' in outcome ? outcome.receipt.loom_id : null },
});

const compose = composeInput;

describeStores('a compose and its audit event', (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await kind.open();
  });
  afterEach(() => store.close());

  it('commits the event built from the outcome in the compose transaction, for every outcome', async () => {
    const first = await store.compose(compose({ audit: eventOf }));
    expect(first.kind).toBe('committed');
    const loomId = first.kind === 'committed' ? first.receipt.loom_id : '';
    await store.compose(compose({ audit: eventOf }));
    await store.compose(compose({ requestId: 'req-2', loomId: 'loom-missing', audit: eventOf }));
    const events = await store.tailAudit(10);
    expect(events.map((e) => [e.command, e.code, e.payload.kind, e.payload.loom_id])).toEqual([
      ['loom.compose', 'ok', 'committed', loomId],
      ['loom.compose', 'ok', 'replayed', loomId],
      ['loom.compose', 'not_found', 'not_found', null],
    ]);
  });

  it('rolls the compose back when its event cannot be written: no receipt without its audit row [SEC-9]', async () => {
    const broken = (): AuditEventInput => {
      // A payload JSON cannot hold: the insert of the event fails inside the transaction.
      const payload: Record<string, unknown> = {};
      payload.self = payload;
      return { ...eventOf({ kind: 'not_found', loomId: 'x' }), payload };
    };
    await expect(store.compose(compose({ audit: broken }))).rejects.toThrow(/circular/i);
    expect(await store.receipts('r1/agent:me', 10)).toEqual([]);
    expect(await store.tailAudit(10)).toEqual([]);
    // The same request id then commits afresh: nothing of the failed attempt remained.
    expect((await store.compose(compose({ audit: eventOf }))).kind).toBe('committed');
  });
});
