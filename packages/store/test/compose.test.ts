// The compose algorithm (src/compose.ts) is written once and run through each store's statements:
// the same calls must leave the same looms, layouts, receipts and operations in both. Real SQLite
// files and a real PostgreSQL schema.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type ComposeInput, type ComposeOutcome, STAGE_CAPACITY, type Store } from '../src/types';
import { composeInput } from './inputs';
import { describeStores } from './stores';

const compose = composeInput;

const committed = (outcome: ComposeOutcome) => {
  if (outcome.kind !== 'committed') throw new Error(`expected a commit, got ${outcome.kind}`);
  return outcome.receipt;
};

describeStores('one compose algorithm over both stores', (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await kind.open();
  });
  afterEach(() => store.close());

  /** The kinds of a receipt's operations, in the receipt's order, with the component each names. */
  const operations = async (ids: string[]) => {
    const rows = await kind.sql('SELECT id, kind, component_id FROM operations');
    const byId = new Map(rows.map((r) => [r.id, [r.kind, r.component_id]]));
    return ids.map((id) => byId.get(id));
  };

  it('shelves a component the same compose placed when its stage overflows, recording displace before the add', async () => {
    const components = Array.from({ length: STAGE_CAPACITY + 1 }, (_, i) => ({
      ref: `page:p${i}`,
      stage: 'main',
      ...(i === 2 ? { focus: true } : {}),
    }));
    const receipt = committed(await store.compose(compose({ components })));
    const [first, ...rest] = receipt.component_ids;
    expect(receipt.displaced).toEqual([first]);
    const view = await store.inspect(receipt.loom_id);
    expect(view?.layout).toEqual({ stages: { main: rest }, shelf: [first], focus: receipt.component_ids[2] });
    expect(view?.components.map((c) => c.position)).toEqual(components.map((_, i) => i));
    const added = receipt.component_ids.map((id) => ['add', id]);
    expect(await operations(receipt.operation_ids)).toEqual([
      ...added.slice(0, 3),
      ['focus', receipt.component_ids[2]],
      ...added.slice(3, STAGE_CAPACITY),
      ['displace', first],
      added[STAGE_CAPACITY],
    ]);
  });

  it('extends a loom after its last position, displacing the longest placed of the stages it names only', async () => {
    const fill = Array.from({ length: STAGE_CAPACITY }, (_, i) => ({ ref: `page:m${i}`, stage: 'main' }));
    const first = committed(
      await store.compose(compose({ components: [...fill, { ref: 'page:side', stage: 'aside' }] })),
    );
    const second = committed(
      await store.compose(
        compose({
          requestId: 'req-2',
          loomId: first.loom_id,
          expectedVersion: 1,
          components: [{ ref: 'page:new', stage: 'main' }, { ref: 'page:loose' }],
        }),
      ),
    );
    expect(second).toMatchObject({ version: 2, created: false, displaced: [first.component_ids[0]] });
    const view = await store.inspect(first.loom_id);
    expect(view?.version).toBe(2);
    expect(view?.components.slice(-2).map((c) => [c.position, c.stage, c.added_version])).toEqual([
      [STAGE_CAPACITY + 1, 'main', 2],
      [STAGE_CAPACITY + 2, null, 2],
    ]);
    expect(view?.layout.stages).toEqual({
      main: [...first.component_ids.slice(1, STAGE_CAPACITY), second.component_ids[0]],
      aside: [first.component_ids[STAGE_CAPACITY]],
    });
    expect(view?.layout.shelf).toEqual([first.component_ids[0], second.component_ids[1]]);
  });

  it('claims a version once: a stale expected version is a conflict, a missing loom not found, and neither writes', async () => {
    const first = committed(await store.compose(compose({})));
    const next = (requestId: string, over: Partial<ComposeInput>) =>
      store.compose(compose({ requestId, loomId: first.loom_id, ...over }));
    expect(committed(await next('req-2', {})).version).toBe(2);
    expect(await next('req-3', { expectedVersion: 1 })).toEqual({
      kind: 'version_conflict',
      loomId: first.loom_id,
      expectedVersion: 1,
      currentVersion: 2,
    });
    expect(await next('req-4', { loomId: 'loom-gone' })).toEqual({ kind: 'not_found', loomId: 'loom-gone' });
    expect((await store.receipts('r1/agent:me', 10)).map((r) => r.request_id)).toEqual(['req-2', 'req-1']);
    expect((await store.inspect(first.loom_id))?.version).toBe(2);
  });

  it('replays a request id with its receipt and the current version, and refuses it with other arguments', async () => {
    const first = committed(await store.compose(compose({})));
    await store.compose(compose({ requestId: 'req-2', loomId: first.loom_id }));
    expect(await store.compose(compose({}))).toEqual({ kind: 'replayed', receipt: first, currentVersion: 2 });
    expect(await store.compose(compose({ argsHash: 'other' }))).toEqual({
      kind: 'request_conflict',
      requestId: 'req-1',
      loomId: first.loom_id,
      version: 1,
    });
  });
});
