import { describe, expect, it } from 'vitest';
import { hiddenReason, readCatalog, suggest } from '../src/catalog';
import { renderListing } from '../src/listing';
import { createRun } from '../src/run';
import { row } from './helpers/scenario';

describe('hiding rules (presentation only)', () => {
  it.each([
    ['HC-51', { origin: 'pattern' }],
    ['HC-52', { developer: true }],
    ['HC-53', { actors: ['person:ann', 'user:bob'] }],
    ['HC-54', { origins_refused: ['session'] }],
    ['HC-55', { origins_required: ['webhook'] }],
    ['HC-56', { grant: 'consent:photos' }],
  ])('%s: a row declaring %j is left out and counted as hidden', (_id, extra) => {
    const r = readCatalog({ commands: [row('a.b', extra), row('c.d')] });
    expect(r.ok && r.catalog.rows.map((x) => x.name)).toEqual(['c.d']);
    expect(r.ok && r.catalog.hidden).toBe(1);
  });

  it('an actor is an agent when it starts with agent:; a row naming any agent is shown (decision) [HC-53]', () => {
    expect(hiddenReason({ actors: ['person:ann', 'agent:x'] })).toBeUndefined();
    expect(hiddenReason({ actors: [] })).toBeUndefined();
  });

  it('a row that declares none of these is shown, as are harmless values of the fields [HC-57]', () => {
    for (const extra of [
      {},
      { developer: false },
      { origins_required: ['session'] },
      { origins_refused: ['webhook'] },
      { grant: null },
    ]) {
      expect(hiddenReason(extra)).toBeUndefined();
    }
  });
});

describe('reading a listing', () => {
  it('unreadable, repeated and past-the-limit rows count as omitted (decision: limit 10 000) [HC-50]', () => {
    const r = readCatalog(
      { commands: [row('a.b'), 7, { id: '' }, { id: 'has space' }, row('a.b'), row('c.d'), row('e.f')] },
      6,
    );
    expect(r.ok && r.catalog.rows.map((x) => x.name)).toEqual(['a.b', 'c.d']);
    expect(r.ok && r.catalog.omitted).toBe(5);
  });

  it('a listing that is not { commands: [...] } is malformed_payload [HC-111]', () => {
    for (const bad of [null, [], { commands: {} }, 'x'])
      expect(readCatalog(bad)).toEqual({ ok: false, code: 'malformed_payload' });
  });

  it('title and description are left out when the host gives none (decision) [HC-41]', () => {
    const r = readCatalog({ commands: [{ id: 'a.b', inputs: {} }] });
    if (!r.ok) throw new Error('unreadable');
    const listing = renderListing(createRun(), r.catalog);
    expect(listing.entries[0]).toEqual({ name: 'a.b', signature: expect.any(String) });
  });

  it('the seed’s example row renders the seed’s example line [HC-61, HC-62, HC-63, HC-65, HC-75, HC-77, HC-79]', () => {
    const r = readCatalog({
      commands: [
        {
          id: 'people-discovery.dossier',
          title: 'Gather what is known about a person.',
          help: '…',
          inputs: {
            type: 'object',
            properties: { entity_id: { type: 'string' }, limit: { type: 'integer', default: 50 } },
            required: ['entity_id'],
          },
          outputs: ['messages', 'records'],
          effect: 'read',
        },
      ],
    });
    expect(r.ok && r.catalog.rows[0]?.signature).toBe(
      'people-discovery.dossier(entity_id: string, limit?: integer = 50) -> {messages, records}  [read, global]',
    );
  });
});

describe('the model bound', () => {
  const catalog = () => {
    const r = readCatalog({
      commands: Array.from({ length: 40 }, (_, i) => row(`c.n${i}`, { help: 'd'.repeat(200) })),
    });
    if (!r.ok) throw new Error('unreadable');
    return r.catalog;
  };

  it('a listing past the bound keeps its first entries whole and the rest without description [HC-47, HC-49]', () => {
    const l = renderListing(createRun(), catalog(), [], 6000);
    const whole = l.entries.map((e) => 'description' in e);
    const firstCompact = whole.indexOf(false);
    expect(firstCompact).toBeGreaterThan(0);
    expect(whole.slice(firstCompact).every((w) => !w)).toBe(true);
    expect(l.compacted).toBe(40 - firstCompact);
    expect(JSON.stringify(l).length).toBeLessThanOrEqual(6000);
  });

  it('a command named in detail is always kept whole [HC-48]', () => {
    const l = renderListing(createRun(), catalog(), ['c.n39'], 6000);
    const last = l.entries.at(-1);
    expect(last?.description).toBeDefined();
    expect(last?.inputSchema).toBeDefined();
  });
});

describe('suggestions', () => {
  const r = readCatalog({
    commands: ['git.status', 'git.log', 'json-tools.query', 'people.find', 'git.log.all'].map((id) =>
      row(id),
    ),
  });
  const cat = r.ok ? r.catalog : undefined;

  it('names containing the called name come first (shortest first), then by edit distance, at most three [HC-104, HC-105]', () => {
    expect(suggest(cat as never, 'log')).toEqual(['git.log', 'git.log.all', expect.any(String)]);
    expect(suggest(cat as never, 'git.stats')[0]).toBe('git.status');
    expect(suggest(cat as never, 'zzzz')).toHaveLength(3);
  });
});

describe('a row’s timeout', () => {
  it('is read where the row names a positive whole number of ms, and is absent otherwise', () => {
    const r = readCatalog({
      commands: [
        row('a.long', { timeoutMs: 360_000 }),
        row('a.none'),
        ...[0, -5, 1.5, '60000', Number.MAX_SAFE_INTEGER + 2].map((timeoutMs, i) =>
          row(`a.bad${i}`, { timeoutMs }),
        ),
      ],
    });
    if (!r.ok) throw new Error('the listing should read');
    expect(r.catalog.rows.map((x) => [x.name, x.timeoutMs])).toEqual([
      ['a.long', 360_000],
      ['a.none', undefined],
      ['a.bad0', undefined],
      ['a.bad1', undefined],
      ['a.bad2', undefined],
      ['a.bad3', undefined],
      ['a.bad4', undefined],
    ]);
  });
});
