// Pinned definitions of MCP server tools (docs/servers.md, "Pinned definitions"), on both stores:
// the hash a person accepted per (server, tool), when each unaccepted definition first appeared, and
// each decision an event of the signed chain, committed with it.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { verifyAuditStore } from '../src/audit-export';
import { auditSigner } from '../src/audit-key';
import { openStoreTarget } from '../src/open';
import type { AuditSigner, Store } from '../src/types';
import { describeStores } from './stores';

const hash = (c: string): string => c.repeat(64);

describeStores('pinned tool definitions', (kind) => {
  let store: Store;
  let other: Store;
  let signer: AuditSigner;
  // A server id of its own: the PostgreSQL schema is shared by this file's tests.
  let server: string;
  beforeEach(async () => {
    if (kind.name === 'postgres') await kind.sql('TRUNCATE audit_heads, audit_checkpoints RESTART IDENTITY');
    signer = auditSigner(generateKeyPairSync('ed25519').privateKey);
    await (await kind.open()).close();
    store = await openStoreTarget(kind.target(), { auditSigner: signer });
    other = await kind.open();
    server = `s${randomUUID().slice(0, 8)}`;
  });
  afterEach(async () => {
    await store.close();
    await other.close();
  });

  it('keeps one accepted hash per server tool, the later decision replacing the earlier [SV-19]', async () => {
    const at = new Date('2026-03-04T05:06:07.000Z');
    await store.decideTool({
      server,
      tool: 'get',
      hash: hash('a'),
      definition: '{}',
      decision: 'accepted',
      by: 'person:ann',
      via: 'cli',
      now: at,
    });
    await store.decideTool({
      server,
      tool: 'put',
      hash: hash('b'),
      definition: '{}',
      decision: 'accepted',
      by: 'person:ann',
      via: 'console',
    });
    await store.decideTool({
      server,
      tool: 'get',
      hash: hash('c'),
      definition: '{}',
      decision: 'accepted',
      by: 'person:bob',
      via: 'cli',
      now: at,
    });
    expect(await other.listToolPins(server)).toEqual([
      {
        server,
        tool: 'get',
        hash: hash('c'),
        definition: '{}',
        accepted_at: at.toISOString(),
        accepted_by: 'person:bob',
        via: 'cli',
      },
      expect.objectContaining({ server, tool: 'put', hash: hash('b'), via: 'console' }),
    ]);
    expect((await other.listToolPins()).filter((p) => p.server === server)).toHaveLength(2);
    expect(await other.listToolPins('elsewhere')).toEqual([]);
  });

  it('records when an unaccepted definition first appeared, once per hash, and says which call recorded it [SV-18]', async () => {
    const first = new Date('2026-01-01T00:00:00.000Z');
    const later = new Date('2026-02-01T00:00:00.000Z');
    const seen = await store.sightTool({
      server,
      tool: 'get',
      hash: hash('a'),
      definition: '{"a":1}',
      now: first,
    });
    expect(seen).toEqual({
      server,
      tool: 'get',
      hash: hash('a'),
      definition: '{"a":1}',
      first_seen: first.toISOString(),
      last_seen: first.toISOString(),
      rejected_at: null,
      rejected_by: null,
      inserted: true,
    });
    expect(
      await other.sightTool({ server, tool: 'get', hash: hash('a'), definition: '{"a":1}', now: later }),
    ).toEqual({
      ...seen,
      last_seen: later.toISOString(),
      inserted: false,
    });
    expect(
      (await store.sightTool({ server, tool: 'get', hash: hash('a'), definition: '{"a":1}', now: first }))
        .inserted,
    ).toBe(false);
    await store.sightTool({ server, tool: 'get', hash: hash('b'), definition: '{"b":1}', now: later });
    expect((await other.listToolSightings(server)).map((s) => [s.hash, s.first_seen, s.last_seen])).toEqual([
      // last_seen never moves back: the call at `first` after the one at `later` left it.
      [hash('a'), first.toISOString(), later.toISOString()],
      [hash('b'), later.toISOString(), later.toISOString()],
    ]);
  });

  it('keeps the definition listed with its sighting, and when it was last listed, for a review from the store alone [SV-18]', async () => {
    const t = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m));
    await store.sightTool({ server, tool: 'get', hash: hash('a'), definition: '{"v":"a"}', now: t(1) });
    await store.sightTool({ server, tool: 'get', hash: hash('b'), definition: '{"v":"b"}', now: t(2) });
    // The server went back to the first definition: it is the latest listed again.
    await other.sightTool({ server, tool: 'get', hash: hash('a'), definition: '{"v":"a"}', now: t(3) });
    const rows = await other.listToolSightings(server);
    expect(rows.map((r) => [r.hash, r.definition, r.first_seen, r.last_seen])).toEqual([
      [hash('a'), '{"v":"a"}', t(1).toISOString(), t(3).toISOString()],
      [hash('b'), '{"v":"b"}', t(2).toISOString(), t(2).toISOString()],
    ]);
  });

  it('lets exactly one of several racing calls record a sighting, on one store or two [SV-18]', async () => {
    const sightings = await Promise.all(
      [store, other, store, other].map((s) =>
        s.sightTool({ server, tool: 'put', hash: hash('c'), definition: '{}' }),
      ),
    );
    expect(sightings.filter((s) => s.inserted)).toHaveLength(1);
  });

  it('marks a rejected definition and leaves the pin as it was [SV-19]', async () => {
    await store.decideTool({
      server,
      tool: 'get',
      hash: hash('a'),
      definition: '{}',
      decision: 'accepted',
      by: 'person:ann',
      via: 'cli',
    });
    await store.sightTool({ server, tool: 'get', hash: hash('b'), definition: '{"b":1}' });
    const at = new Date('2026-05-05T00:00:00.000Z');
    await store.decideTool({
      server,
      tool: 'get',
      hash: hash('b'),
      definition: '{}',
      decision: 'rejected',
      by: 'person:ann',
      via: 'cli',
      now: at,
    });
    expect((await other.listToolPins(server)).map((p) => p.hash)).toEqual([hash('a')]);
    expect(await other.listToolSightings(server)).toEqual([
      expect.objectContaining({
        hash: hash('b'),
        definition: '{"b":1}',
        rejected_at: at.toISOString(),
        rejected_by: 'person:ann',
      }),
    ]);
  });

  it('writes each decision as an event of the signed chain, naming the hash, how it was given and the hash it replaced [SV-19]', async () => {
    await store.decideTool({
      server,
      tool: 'get',
      hash: hash('a'),
      definition: '{}',
      decision: 'accepted',
      by: 'person:ann',
      via: 'cli',
    });
    await store.decideTool({
      server,
      tool: 'get',
      hash: hash('b'),
      definition: '{}',
      decision: 'rejected',
      by: 'person:ann',
      via: 'cli',
    });
    await store.decideTool({
      server,
      tool: 'get',
      hash: hash('c'),
      definition: '{}',
      decision: 'accepted',
      by: 'person:bob',
      via: 'console',
    });
    const events = (await store.queryAudit({ command: `${server}:get` })).events;
    expect(events.map((e) => [e.phase, e.action, e.outcome, e.actor, e.payload])).toEqual([
      [
        'pin',
        'server:tool_accepted',
        'accepted',
        'person:ann',
        { server, tool: 'get', hash: hash('a'), via: 'cli' },
      ],
      [
        'pin',
        'server:tool_rejected',
        'rejected',
        'person:ann',
        { server, tool: 'get', hash: hash('b'), via: 'cli', previous: hash('a') },
      ],
      [
        'pin',
        'server:tool_accepted',
        'accepted',
        'person:bob',
        { server, tool: 'get', hash: hash('c'), via: 'console', previous: hash('a') },
      ],
    ]);
    await store.checkpointAudit('schedule');
    const verified = await verifyAuditStore(store, { publicKeys: [signer.publicKey] });
    expect(verified.problem).toBeUndefined();
    expect(verified.ok).toBe(true);
  });
});
