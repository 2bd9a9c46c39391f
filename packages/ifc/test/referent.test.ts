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
