import { describe, expect, it } from 'vitest';
import { flowsTo, type Label, measure, PUBLIC, ReferentStore } from '../src/index';

const alice: Label = { confidentiality: ['alice'], integrity: [] };
const bob: Label = { confidentiality: ['bob'], integrity: [] };
const answer = (body: unknown, ifc?: Label) => ({
  ok: true,
  id: 'notes.search',
  code: 'ok',
  mayHaveLanded: false,
  completed: [],
  body,
  ...(ifc ? { ifc } : {}),
});
const provenance = { command: 'notes.search', actor: 'agent:a1', loomId: 'loom-1', version: 3 };
const admit = (body: unknown, ifc?: Label) =>
  measure(answer(body, ifc), { queryLabel: bob, ceiling: undefined });

describe('ReferentStore', () => {
  it('holds an admitted answer as a document referent with label source command [HC-167]', () => {
    const store = new ReferentStore();
    const doc = store.hold(admit({ hits: 2 }, alice), { source: 'command', provenance });
    expect(doc).toMatchObject({
      id: 'doc-1',
      kind: 'document',
      labelSource: 'command',
      labelFrom: 'row',
      label: alice,
    });
    expect(doc.content).toEqual(answer({ hits: 2 }, alice));
    expect(store.hold(admit({}), { source: 'command', provenance }).labelFrom).toBe('query');
  });

  it('the provenance names the command, the agent actor, the loom and the version [HC-168]', () => {
    const doc = new ReferentStore().hold(admit({}), { source: 'command', provenance });
    expect(doc.provenance).toEqual({
      command: 'notes.search',
      actor: 'agent:a1',
      loomId: 'loom-1',
      version: 3,
    });
  });

  it('mints doc-<n> ids in order, per store, so a run is reproducible', () => {
    const ids = (store: ReferentStore) =>
      [1, 2, 3].map(() => store.hold(admit({}), { source: 'command', provenance }).id);
    expect(ids(new ReferentStore())).toEqual(['doc-1', 'doc-2', 'doc-3']);
    expect(ids(new ReferentStore())).toEqual(['doc-1', 'doc-2', 'doc-3']);
  });

  it('a document minted from a structured result is linked to it and never labelled looser [HC-169]', () => {
    const store = new ReferentStore();
    const parent = store.hold(admit({ handle: 'page:1' }, alice), { source: 'command', provenance });
    const child = store.hold(admit({ page: 1 }, PUBLIC), {
      source: 'command',
      provenance,
      derivedFrom: parent.id,
    });
    expect(child.derivedFrom).toBe('doc-1');
    expect(store.derivedFrom('doc-1')).toEqual([child]);
    expect(flowsTo(parent.label, child.label)).toBe(true);
    expect(() =>
      store.hold(admit({}), { source: 'command', provenance, derivedFrom: 'doc-99' }),
    ).toThrowError(expect.objectContaining({ code: 'unknown_referent' }));
  });

  it('the label stays on the artifact; the model-visible citation carries neither label nor content [HC-174]', () => {
    const store = new ReferentStore();
    const doc = store.hold(admit({ text: 'body' }, alice), { source: 'command', provenance });
    const citation = store.cite(doc.id);
    expect(citation).toEqual({ id: 'doc-1', kind: 'document', labelSource: 'command', provenance });
    expect(JSON.stringify(citation)).not.toContain('alice');
    expect(store.get('doc-1')?.label).toEqual(alice);
    expect(store.cite('doc-2')).toBeUndefined();
  });

  it('refuses to hold a withheld answer', () => {
    const withheld = measure(answer({}, alice), { queryLabel: PUBLIC, ceiling: [] });
    expect(() => new ReferentStore().hold(withheld, { source: 'command', provenance })).toThrowError(
      expect.objectContaining({ code: 'not_admitted' }),
    );
  });

  it('refuses provenance without command or actor', () => {
    expect(() =>
      new ReferentStore().hold(admit({}), { source: 'command', provenance: { command: 'x', actor: '' } }),
    ).toThrowError(expect.objectContaining({ code: 'invalid_provenance' }));
  });

  it('lists what it holds in minting order', () => {
    const store = new ReferentStore();
    store.hold(admit({}), { source: 'command', provenance });
    store.hold(admit({}), { source: 'retrieval', provenance });
    expect(store.list().map((r) => [r.id, r.labelSource])).toEqual([
      ['doc-1', 'command'],
      ['doc-2', 'retrieval'],
    ]);
  });
});

describe('ReferentStore bounds', () => {
  const holdOne = (store: ReferentStore, body: unknown = {}) =>
    store.hold(admit(body), { source: 'command', provenance }).id;

  it('drops the oldest document past the count bound and answers expired for its id', () => {
    const store = new ReferentStore({ maxCount: 3 });
    const ids = [1, 2, 3, 4, 5].map(() => holdOne(store));
    expect(store.size.count).toBe(3);
    expect(store.get('doc-1')).toBeUndefined();
    expect(store.lookup('doc-2')).toMatchObject({ status: 'expired', id: 'doc-2' });
    expect((store.lookup('doc-1') as { message: string }).message).toContain('doc-1 expired');
    expect(store.lookup('doc-5')).toMatchObject({ status: 'held', referent: { id: 'doc-5' } });
    expect(store.lookup('doc-6')).toEqual({ status: 'unknown', id: 'doc-6' });
    expect(store.list().map((r) => r.id)).toEqual(ids.slice(2));
  });

  it('drops the oldest documents past the byte bound, counting the content as UTF-8 JSON', () => {
    const store = new ReferentStore({ maxBytes: 1000 });
    holdOne(store, { text: 'é'.repeat(200) });
    holdOne(store, { text: 'é'.repeat(200) });
    // Two documents of ~400 bytes each fit; a third passes 1000 bytes and drops the first.
    expect(store.size.count).toBe(2);
    holdOne(store, { text: 'é'.repeat(200) });
    expect(store.list().map((r) => r.id)).toEqual(['doc-2', 'doc-3']);
    expect(store.size.bytes).toBeLessThanOrEqual(1000);
  });

  it('keeps the newest document even when it alone passes the byte bound', () => {
    const store = new ReferentStore({ maxBytes: 10 });
    holdOne(store);
    holdOne(store, { text: 'x'.repeat(100) });
    expect(store.list().map((r) => r.id)).toEqual(['doc-2']);
  });

  it('refuses to derive a document from an expired one with expired_referent', () => {
    const store = new ReferentStore({ maxCount: 1 });
    holdOne(store);
    holdOne(store);
    expect(() => store.hold(admit({}), { source: 'command', provenance, derivedFrom: 'doc-1' })).toThrow(
      expect.objectContaining({ code: 'expired_referent' }),
    );
    expect(() => store.hold(admit({}), { source: 'command', provenance, derivedFrom: 'doc-9' })).toThrow(
      expect.objectContaining({ code: 'unknown_referent' }),
    );
  });

  it('refuses a bound that is not a whole number of at least 1', () => {
    expect(() => new ReferentStore({ maxCount: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_bound' }),
    );
    expect(() => new ReferentStore({ maxBytes: 1.5 })).toThrow(
      expect.objectContaining({ code: 'invalid_bound' }),
    );
  });
});
