// The tamper-evident audit log (docs/audit.md) on both stores: each tampering a person with the
// store but without the instance key can do is named by the verifier with the event it touched,
// and an untouched store verifies. Tampering is raw SQL on the real tables.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  canonicalJson,
  checkpointText,
  eventHash,
  eventText,
  GENESIS,
  signCheckpoint,
} from '../src/audit-chain';
import { exportAudit, verifyAuditExport, verifyAuditStore } from '../src/audit-export';
import { auditSigner } from '../src/audit-key';
import { AuditVerifier } from '../src/audit-verify';
import type { AuditSigner, ChainedAuditEvent, Store } from '../src/types';
import { auditEvent } from './inputs';
import { describeStores } from './stores';

const newSigner = (): AuditSigner => auditSigner(generateKeyPairSync('ed25519').privateKey);

/** The chain fields of every event, as stored, oldest first. */
type Row = Record<string, unknown> & { seq: number; chain_n: number; hash: string; prev: string };

const EVENT_COLUMNS =
  'seq, at, run, actor, job, command, action, phase, outcome, code, reason, payload, chain, chain_n, prev, hash';

describe('the canonical encoding', () => {
  it('is RFC 8785: members sorted by UTF-16 code units, no whitespace, ECMAScript numbers and escapes', () => {
    expect(canonicalJson({ b: [1, 2.5, -0, 1e21], a: { z: null, é: '\u0001"\\' }, '\u20ac': true })).toBe(
      '{"a":{"z":null,"é":"\\u0001\\"\\\\"},"b":[1,2.5,0,1e+21],"€":true}',
    );
  });

  it('gives the test vectors of docs/audit.md', () => {
    const first = {
      chain: '3f2a9c0d5e6b7a81',
      n: 1,
      prev: GENESIS,
      at: '2026-12-01T09:00:00.000Z',
      run: 'r1',
      actor: 'agent:me',
      job: null,
      command: 'text.echo',
      action: 'command:call:text:echo',
      phase: 'run' as const,
      outcome: 'ok',
      code: 'ok',
      reason: null,
      payload: { exit: 0, arg_names: ['text'] },
    };
    expect(eventText(first)).toBe(
      '{"action":"command:call:text:echo","actor":"agent:me","at":"2026-12-01T09:00:00.000Z","chain":"3f2a9c0d5e6b7a81","code":"ok","command":"text.echo","job":null,"n":1,"outcome":"ok","payload":{"arg_names":["text"],"exit":0},"phase":"run","prev":"0000000000000000000000000000000000000000000000000000000000000000","reason":null,"run":"r1","v":1}',
    );
    expect(eventText(first)).toBe(canonicalJson({ ...first, v: 1 }));
    expect(eventHash(first)).toMatchInlineSnapshot(
      `"4aeddd980675ec93725782247ecc7e5284f2ae57c831b59f05841f5316b2c48a"`,
    );
    const second = {
      ...first,
      n: 2,
      prev: eventHash(first),
      at: '2026-12-01T09:00:01.000Z',
      outcome: 'refused',
      code: 'refused',
      reason: 'approval_required',
      payload: { é: 'ü', a: 1.5 },
    };
    expect(eventHash(second)).toMatchInlineSnapshot(
      `"1ab08ce6bcf9585316a0ef82b523298f1e36948b27d9d679a759636f0f3ba152"`,
    );
    expect(
      checkpointText({
        chain: '3f2a9c0d5e6b7a81',
        n: 2,
        head: eventHash(second),
        at: '2026-12-01T09:05:00.000Z',
        kind: 'schedule',
        removed: 0,
      }),
    ).toMatchInlineSnapshot(
      `"{"at":"2026-12-01T09:05:00.000Z","chain":"3f2a9c0d5e6b7a81","head":"1ab08ce6bcf9585316a0ef82b523298f1e36948b27d9d679a759636f0f3ba152","kind":"schedule","n":2,"removed":0,"type":"loom-audit-checkpoint","v":1}"`,
    );
  });

  it('signs a checkpoint as docs/audit.md shows, with the RFC 8032 test key 1', () => {
    const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const signer = auditSigner(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
    expect([signer.publicKey, signer.chain]).toEqual([
      'ed25519:11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
      '21fe31dfa154a261',
    ]);
    const c = signCheckpoint(signer, {
      n: 2,
      head: '1ab08ce6bcf9585316a0ef82b523298f1e36948b27d9d679a759636f0f3ba152',
      kind: 'schedule',
      at: '2026-12-01T09:05:00.000Z',
    });
    expect(c.signature).toBe(
      'iPZxuDAEs7lXXunoMeUGyIv9byG1LQN1WqRk+5e3f0o1S3y2lDPQ0qGVpDR23YwjoGaJrW2GrCyLcnyGCBmaDw==',
    );
  });
});

/** `count` events of agent:me, `payload.i` from 1, through the store's own append. */
async function appendMany(store: Store, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    await store.appendAudit(auditEvent({ outcome: i % 7 === 0 ? 'refused' : 'ok', payload: { i } }));
  }
}

describeStores('the audit chain names each tampering with the event it touched', (kind) => {
  const clean = async (): Promise<void> => {
    // The contract suite empties the tables it knows; the chain's heads and checkpoints go too.
    if (kind.name === 'postgres') await kind.sql('TRUNCATE audit_heads, audit_checkpoints RESTART IDENTITY');
  };

  /** A store of 100 events signed by `signer`, its head checkpointed at position 100. */
  const signedStore = async (signer: AuditSigner): Promise<Store> => {
    await clean();
    const store = await kind.open();
    await store.close();
    const signed = await (await import('../src/open')).openStoreTarget(kind.target(), {
      auditSigner: signer,
    });
    await appendMany(signed, 100);
    await signed.checkpointAudit('schedule');
    return signed;
  };

  const rows = async (): Promise<Row[]> =>
    (await kind.sql(`SELECT ${EVENT_COLUMNS} FROM audit ORDER BY seq`)).map((r) => ({
      ...r,
      seq: Number(r.seq),
      chain_n: Number(r.chain_n),
    })) as Row[];

  const verify = (store: Store, signer: AuditSigner) =>
    verifyAuditStore(store, { publicKeys: [signer.publicKey] });

  it('verifies an untouched store, every event signed [AUD-1]', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    try {
      const result = await verify(store, signer);
      expect(result.problem).toBeUndefined();
      expect(result).toMatchObject({ ok: true, events: 100, unchained: 0 });
      expect(result.chains).toEqual([
        {
          chain: signer.chain,
          publicKey: signer.publicKey,
          pinned: true,
          events: 100,
          from: 1,
          to: 100,
          signedThrough: 100,
          unsigned: 0,
        },
      ]);
    } finally {
      await store.close();
    }
  });

  it('names an event one field of which was changed [AUD-2]', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    try {
      await kind.sql("UPDATE audit SET outcome = 'ok' WHERE seq = 42");
      expect((await verify(store, signer)).problem).toEqual({
        kind: 'changed',
        chain: signer.chain,
        seq: 42,
        message: 'event 42 was changed: its content no longer matches its hash',
      });
    } finally {
      await store.close();
    }
  });

  it('names where an event was removed [AUD-3]', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    try {
      await kind.sql('DELETE FROM audit WHERE seq = 40');
      expect((await verify(store, signer)).problem).toEqual({
        kind: 'removed',
        chain: signer.chain,
        seq: 39,
        message: `the event(s) at position 40 of chain ${signer.chain}, after event 39 and before event 41, were removed`,
      });
    } finally {
      await store.close();
    }
  });

  it('names an event inserted with a correct hash at a position another holds [AUD-4]', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    try {
      const all = await rows();
      const before = all[39] as Row;
      const forged = {
        ...auditEvent({ outcome: 'ok', payload: { i: 'forged' } }),
        at: String(before.at),
        chain: signer.chain,
        n: 41,
        prev: before.hash,
      };
      const overriding = kind.name === 'postgres' ? 'OVERRIDING SYSTEM VALUE' : '';
      await kind.sql(
        `INSERT INTO audit (${EVENT_COLUMNS}) ${overriding} VALUES (1000, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          forged.at,
          forged.run,
          forged.actor,
          forged.job,
          forged.command,
          forged.action,
          forged.phase,
          forged.outcome,
          forged.code,
          forged.reason,
          JSON.stringify(forged.payload),
          forged.chain,
          forged.n,
          forged.prev,
          eventHash(forged),
        ],
      );
      expect((await verify(store, signer)).problem).toEqual({
        kind: 'inserted',
        chain: signer.chain,
        seq: 1000,
        message: `event 1000 claims position 41 of chain ${signer.chain}, which an earlier event holds (event 100 is at 100): it was inserted`,
      });
    } finally {
      await store.close();
    }
  });

  it('names the first of two events that were swapped [AUD-5]', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    try {
      const all = await rows();
      const columns = EVENT_COLUMNS.split(', ').filter((c) => c !== 'seq');
      const set = columns.map((c) => `${c} = ?`).join(', ');
      for (const [from, to] of [
        [30, 29],
        [29, 30],
      ] as const) {
        const source = all[from] as Row;
        await kind.sql(`UPDATE audit SET ${set} WHERE seq = ?`, [...columns.map((c) => source[c]), to + 1]);
      }
      expect((await verify(store, signer)).problem).toEqual({
        kind: 'reordered',
        chain: signer.chain,
        seq: 30,
        message: `event 30 is out of order: it holds position 31 of chain ${signer.chain}, but event 31 after it holds position 30`,
      });
    } finally {
      await store.close();
    }
  });

  it('names the last event left when the tail was cut before the newest checkpoint [AUD-6]', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    try {
      await kind.sql('DELETE FROM audit WHERE seq > 90');
      const { problem } = await verify(store, signer);
      expect(problem).toMatchObject({ kind: 'cut', chain: signer.chain, seq: 90 });
      expect(problem?.message).toMatch(
        new RegExp(
          `^chain ${signer.chain} ends at event 90 \\(position 90\\), but checkpoint \\d+ signed position 100: the events after it were removed$`,
        ),
      );
    } finally {
      await store.close();
    }
  });

  it('cannot tell an event appended after the newest checkpoint from a real one: it counts it unsigned [AUD-7]', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    try {
      await store.appendAudit(auditEvent({ payload: { i: 101 } }));
      const result = await verify(store, signer);
      expect(result.ok).toBe(true);
      expect(result.chains[0]).toMatchObject({ events: 101, signedThrough: 100, unsigned: 1 });
    } finally {
      await store.close();
    }
  });

  /** Rewrites every event (the first one's outcome changed), re-hashing the chain as the store would. */
  const forge = async (chain: string, rechain: string = chain): Promise<void> => {
    let prev = GENESIS;
    const values: string[] = [];
    const params: unknown[] = [];
    for (const r of await rows()) {
      const e = {
        at: String(r.at),
        run: String(r.run),
        actor: String(r.actor),
        job: r.job === null ? null : String(r.job),
        command: String(r.command),
        action: String(r.action),
        phase: r.phase as 'run',
        outcome: r.seq === 1 ? 'refused' : String(r.outcome),
        code: String(r.code),
        reason: r.reason === null ? null : String(r.reason),
        payload: JSON.parse(String(r.payload)) as Record<string, unknown>,
        chain: rechain,
        n: r.chain_n,
        prev,
      };
      const hash = eventHash(e);
      values.push('(CAST(? AS BIGINT), ?, ?, ?, ?)');
      params.push(r.seq, e.outcome, rechain, prev, hash);
      prev = hash;
    }
    // One statement for the whole chain, in both dialects.
    const column = (name: string) => `${name} = (SELECT v.${name} FROM v WHERE v.seq = audit.seq)`;
    await kind.sql(
      `WITH v (seq, outcome, chain, prev, hash) AS (VALUES ${values.join(', ')})
       UPDATE audit SET ${['outcome', 'chain', 'prev', 'hash'].map(column).join(', ')} WHERE seq IN (SELECT seq FROM v)`,
      params,
    );
    await kind.sql('UPDATE audit_heads SET chain = ?, head = ? WHERE chain = ?', [rechain, prev, chain]);
  };

  it('names the rewritten stretch when the whole chain is re-hashed without the key [AUD-8]', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    try {
      await forge(signer.chain);
      const { problem } = await verify(store, signer);
      expect(problem).toMatchObject({ kind: 'rewritten', chain: signer.chain, seq: 100 });
      expect(problem?.message).toMatch(
        new RegExp(
          `^chain ${signer.chain} from its first event to event 100 is not what checkpoint \\d+ signed at position 100 `,
        ),
      );
    } finally {
      await store.close();
    }
  });

  it("refuses the forger's own checkpoints, whether on the chain or on a chain of the forger's key [AUD-9]", async () => {
    const signer = newSigner();
    const forger = newSigner();
    const store = await signedStore(signer);
    try {
      await forge(signer.chain);
      // Re-signed with the forger's key, under the real chain's name.
      const fake = signCheckpoint(
        { ...forger, chain: signer.chain },
        { n: 100, head: (await rows())[99]?.hash ?? '', kind: 'schedule' },
      );
      await kind.sql('DELETE FROM audit_checkpoints');
      await kind.sql(
        'INSERT INTO audit_checkpoints (chain, n, head, at, kind, removed, public_key, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [fake.chain, fake.n, fake.head, fake.at, fake.kind, fake.removed, fake.publicKey, fake.signature],
      );
      expect((await verify(store, signer)).problem).toMatchObject({
        kind: 'forged_checkpoint',
        chain: signer.chain,
        message: expect.stringContaining(`is signed with the key of chain ${forger.chain}, not its own`),
      });
      // Moved whole to the forger's own chain, properly signed there: the pinned chain is gone.
      await kind.sql('DELETE FROM audit_checkpoints');
      await forge(signer.chain, forger.chain);
      for (const c of [
        signCheckpoint(forger, { n: 0, head: GENESIS, kind: 'genesis' }),
        signCheckpoint(forger, { n: 100, head: (await rows())[99]?.hash ?? '', kind: 'schedule' }),
      ]) {
        await kind.sql(
          'INSERT INTO audit_checkpoints (chain, n, head, at, kind, removed, public_key, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          [c.chain, c.n, c.head, c.at, c.kind, c.removed, c.publicKey, c.signature],
        );
      }
      const moved = await verify(store, signer);
      expect(moved.problem).toEqual({
        kind: 'unanchored',
        chain: signer.chain,
        seq: null,
        message: `the store holds nothing of chain ${signer.chain} (key ${signer.publicKey}): not even its signed start; its events and checkpoints were removed`,
      });
      expect(moved.chains.find((c) => c.chain === forger.chain)).toMatchObject({
        pinned: false,
        events: 100,
      });
    } finally {
      await store.close();
    }
  });

  it('starts a verified chain at a pruned boundary, and names events removed past it [AUD-10]', async () => {
    const signer = newSigner();
    await clean();
    await (await kind.open()).close();
    const store = await (await import('../src/open')).openStoreTarget(kind.target(), { auditSigner: signer });
    try {
      // 25 events of 2020, then 75 of today: a prune before 2021 removes exactly the first 25.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2020-06-01T00:00:00Z'));
      await appendMany(store, 25);
      vi.useRealTimers();
      await appendMany(store, 75);
      await store.checkpointAudit('schedule');
      expect(await store.prune(new Date('2021-01-01T00:00:00Z'))).toEqual({ audit: 25, approvals: 0 });
      const result = await verify(store, signer);
      expect(result.problem).toBeUndefined();
      expect(result.chains[0]).toMatchObject({
        from: 26,
        to: 100,
        events: 75,
        signedThrough: 100,
        unsigned: 0,
      });
      expect((await store.auditCheckpoints()).map((c) => [c.kind, c.n, c.removed])).toEqual([
        ['prune', 25, 25],
        ['schedule', 100, 0],
      ]);
      await kind.sql('DELETE FROM audit WHERE seq = 26');
      expect((await verify(store, signer)).problem).toEqual({
        kind: 'removed',
        chain: signer.chain,
        seq: 27,
        message: `event(s) at position 26 of chain ${signer.chain}, before event 27, were removed without a signed prune checkpoint`,
      });
    } finally {
      vi.useRealTimers();
      await store.close();
    }
  });

  it('keeps the appends of one host in order when they run concurrently, and checkpoints at close [AUD-11]', async () => {
    const signer = newSigner();
    await clean();
    const open = (await import('../src/open')).openStoreTarget;
    await (await kind.open()).close();
    const store = await open(kind.target(), { auditSigner: signer });
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.appendAudit(auditEvent({ payload: { i } }))),
    );
    await store.close();
    const again = await open(kind.target(), { auditSigner: signer });
    try {
      const result = await verify(again, signer);
      expect(result.problem).toBeUndefined();
      expect(result.chains[0]).toMatchObject({ events: 50, signedThrough: 50, unsigned: 0 });
      expect((await again.auditCheckpoints()).map((c) => c.kind)).toEqual(['genesis', 'shutdown']);
    } finally {
      await again.close();
    }
  });

  it('gives each host its own chain on one store, each verified with its key [AUD-12]', async () => {
    const a = newSigner();
    const b = newSigner();
    await clean();
    const open = (await import('../src/open')).openStoreTarget;
    await (await kind.open()).close();
    const hostA = await open(kind.target(), { auditSigner: a });
    const hostB = await open(kind.target(), { auditSigner: b });
    await Promise.all([appendMany(hostA, 30), appendMany(hostB, 30)]);
    await Promise.all([hostA.close(), hostB.close()]);
    const reader = await kind.open();
    try {
      const both = await verifyAuditStore(reader, { publicKeys: [a.publicKey, b.publicKey] });
      expect(both.problem).toBeUndefined();
      expect(both.chains.map((c) => [c.chain, c.events, c.pinned, c.unsigned]).sort()).toEqual(
        [
          [a.chain, 30, true, 0],
          [b.chain, 30, true, 0],
        ].sort(),
      );
      const onlyA = await verifyAuditStore(reader, { publicKeys: [a.publicKey] });
      expect(onlyA.ok).toBe(true);
      expect(onlyA.chains.find((c) => c.chain === b.chain)?.pinned).toBe(false);
    } finally {
      await reader.close();
    }
  });

  it('writes no chain field and signs nothing with the chain turned off, which the verifier names', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    await store.close();
    const open = (await import('../src/open')).openStoreTarget;
    const off = await open(kind.target(), { auditSigner: signer, chainAudit: false });
    await appendMany(off, 3);
    await off.close();
    const written = (await rows()).slice(100);
    expect(written.map((r) => [r.chain, r.hash, r.prev])).toEqual([
      [null, null, null],
      [null, null, null],
      [null, null, null],
    ]);
    expect(await kind.sql('SELECT count(*) AS n FROM audit_checkpoints WHERE n > 100')).toEqual([
      { n: kind.name === 'postgres' ? '0' : 0 },
    ]);
    const reader = await kind.open();
    try {
      const result = await verify(reader, signer);
      expect(result.ok).toBe(false);
      expect(result.problem?.seq).toBe(written[0]?.seq);
    } finally {
      await reader.close();
    }
  });

  it('exports a bundle that verifies offline, and names a change or a cut in the file [AUD-13]', async () => {
    const signer = newSigner();
    const store = await signedStore(signer);
    let text = '';
    try {
      const written = await exportAudit(store, signer, (line) => {
        text += line;
      });
      expect(written.events).toBe(100);
    } finally {
      await store.close();
    }
    const lines = text.trimEnd().split('\n');
    const good = await verifyAuditExport(lines, { publicKeys: [signer.publicKey] });
    expect(good.problem).toBeUndefined();
    expect(good).toMatchObject({ ok: true, events: 100, signedBy: signer.publicKey });
    const changed = lines.map((l) => l.replace('"i":42}', '"i":43}'));
    expect((await verifyAuditExport(changed)).problem).toMatchObject({
      kind: 'changed',
      message: expect.stringMatching(/^event \d+ was changed/),
    });
    expect((await verifyAuditExport(lines.slice(0, -1))).problem?.message).toBe(
      `the export ends after line ${lines.length - 1} without its signed trailer: it was cut`,
    );
    expect((await verifyAuditExport(lines, { publicKeys: [newSigner().publicKey] })).problem?.kind).toBe(
      'export',
    );
  });
});

describeStores('an untouched store of 100 000 events verifies', (kind) => {
  /**
   * Writes events `from`..`to` of `signer`'s chain as the store's append would (same hash function,
   * same columns) in multi-row INSERTs: a PostgreSQL server that syncs every commit to disk takes
   * minutes for 100 000 single appends here, and the append path has its own tests above.
   */
  const bulk = async (
    signer: AuditSigner,
    from: number,
    to: number,
    prev: string,
    at: string,
  ): Promise<string> => {
    let head = prev;
    for (let start = from; start <= to; start += 1000) {
      const params: unknown[] = [];
      const values: string[] = [];
      for (let n = start; n <= Math.min(to, start + 999); n++) {
        const e = { ...auditEvent({ payload: { i: n } }), at, chain: signer.chain, n, prev: head };
        head = eventHash(e);
        values.push('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
        params.push(e.at, e.run, e.actor, e.job, e.command, e.action, e.phase, e.outcome, e.code, e.reason);
        params.push(JSON.stringify(e.payload), e.chain, n, e.prev, head);
      }
      await kind.sql(
        `INSERT INTO audit (at, run, actor, job, command, action, phase, outcome, code, reason, payload, chain, chain_n, prev, hash) VALUES ${values.join(', ')}`,
        params,
      );
    }
    await kind.sql('UPDATE audit_heads SET n = ?, head = ? WHERE chain = ?', [to, head, signer.chain]);
    return head;
  };

  it('verifies 100 000 events [AUD-14]', { timeout: 600_000 }, async () => {
    const signer = newSigner();
    if (kind.name === 'postgres') await kind.sql('TRUNCATE audit_heads, audit_checkpoints RESTART IDENTITY');
    await (await kind.open()).close();
    const store = await (await import('../src/open')).openStoreTarget(kind.target(), { auditSigner: signer });
    try {
      // Through the store's own append (in flight together, as a busy broker's): all of them on
      // SQLite, the first 1 000 on PostgreSQL and the rest written in bulk the same way.
      const appended = kind.name === 'sqlite' ? 100_000 : 1_000;
      for (let i = 0; i < appended; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, j) => store.appendAudit(auditEvent({ payload: { i: i + j + 1 } }))),
        );
      }
      if (appended < 100_000) {
        const [last] = await kind.sql('SELECT hash, at FROM audit ORDER BY seq DESC LIMIT 1');
        await bulk(signer, appended + 1, 100_000, String(last?.hash), String(last?.at));
      }
      await store.checkpointAudit('schedule');
      const result = await verifyAuditStore(store, { publicKeys: [signer.publicKey] });
      expect(result.problem).toBeUndefined();
      expect(result.chains[0]).toMatchObject({ events: 100_000, signedThrough: 100_000, unsigned: 0 });
    } finally {
      await store.close();
    }
  });
});

describe('the verifier settles a repeated position with the event that follows', () => {
  /** A chain of `count` events signed by `signer`, with its genesis and a checkpoint at its end. */
  const chainOf = (signer: AuditSigner, count: number): ChainedAuditEvent[] => {
    const out: ChainedAuditEvent[] = [];
    let prev = GENESIS;
    for (let n = 1; n <= count; n++) {
      const e = {
        ...auditEvent({ payload: { n } }),
        at: `2026-12-01T09:00:${String(n).padStart(2, '0')}.000Z`,
        chain: signer.chain,
        n,
        prev,
      };
      const hash = eventHash(e);
      out.push({ ...e, seq: n, hash });
      prev = hash;
    }
    return out;
  };

  it('names the inserted one of two events that hold one position [AUD-15]', () => {
    const signer = newSigner();
    const events = chainOf(signer, 10);
    const genesis = { id: 1, ...signCheckpoint(signer, { n: 0, head: GENESIS, kind: 'genesis' }) };
    const fifth = events[4] as ChainedAuditEvent;
    const forged = {
      ...auditEvent({ payload: { n: 'x' } }),
      at: fifth.at,
      chain: signer.chain,
      n: 6,
      prev: fifth.hash as string,
    };
    const shifted = events.map((e) => ({ ...e, seq: e.seq > 5 ? e.seq + 1 : e.seq }));
    const withInsert = [
      ...shifted.slice(0, 5),
      { ...forged, seq: 6, hash: eventHash(forged) },
      ...shifted.slice(5),
    ];
    const v = new AuditVerifier([genesis], [signer.publicKey]);
    for (const e of withInsert) if (!v.event(e)) break;
    expect(v.finish().problem).toEqual({
      kind: 'inserted',
      chain: signer.chain,
      seq: 6,
      message: `event 6 was inserted: it claims position 6 of chain ${signer.chain}, which event 7 holds`,
    });
  });
});
