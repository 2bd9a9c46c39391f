// The Loom built-ins through the command layer, against both stores (a real SQLite file, a real
// PostgreSQL schema): compose, idempotency, the stage model, atomic commit, inspect, context.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REF_KINDS } from '@harness/protocol';
import { type Receipt, STAGE_CAPACITY, type Store } from '@harness/store';
import { tempDir } from '@harness/test-utils';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommandHost } from '../src/host';
import type { ScopeFile } from '../src/scope';
import { hostOver, WORKSPACE_YAML } from './helpers';
import { describeStores } from './stores';

describeStores('the Loom built-ins', (kind) => {
  let dir: ReturnType<typeof tempDir>;
  let workspace: string;
  let host: CommandHost;
  let store: Store;

  /** A command host for `scope` over a store of its own on this test's store (file or schema). */
  const hostFor = async (scope: ScopeFile): Promise<{ host: CommandHost; store: Store }> => {
    const opened = await kind.open();
    return { host: await hostOver(opened, scope, workspace), store: opened };
  };

  beforeAll(() => {
    dir = tempDir('host-loom-');
    workspace = join(dir.path, 'workspace.yaml');
    writeFileSync(workspace, WORKSPACE_YAML);
  });
  afterAll(() => dir.cleanup());
  beforeEach(async () => {
    ({ host, store } = await hostFor({ run: 'run-1', agent: 'editor' }));
  });
  afterEach(async () => {
    await store.close();
  });

  const compose = (
    args: Record<string, unknown>,
    extra: { loomId?: string; expectedVersion?: number } = {},
  ) => host.run({ op: 'run', command: 'loom.compose', args, ...extra });

  interface ComposeBody {
    receipt: Receipt;
    replayed: boolean;
    current_version: number;
    displaced: string[];
  }
  const body = (a: { body: unknown }) => a.body as ComposeBody;

  describe('loom.compose', () => {
    it('without loom_id creates a loom at version 1 and returns a receipt [LA-39]', async () => {
      const a = await compose({ request_id: 'r1', components: [{ ref: 'page:home', title: 'Home' }] });
      expect(a).toMatchObject({ ok: true, code: 'ok', mayHaveLanded: true });
      const b = body(a);
      expect(b.receipt).toMatchObject({ request_id: 'r1', version: 1, created: true, displaced: [] });
      expect(b.receipt.loom_id).toMatch(/^loom-[0-9a-f]{16}$/);
      expect(b.receipt.component_ids).toHaveLength(1);
      expect(b.replayed).toBe(false);
      expect(b.current_version).toBe(1);
    });

    it('the receipt holds loom id, request id, version, created flag, component, operation and displaced ids [LA-99]', async () => {
      const b = body(
        await compose({
          request_id: 'r1',
          components: [{ ref: 'url:https://x.test' }, { ref: 'person:ada' }],
        }),
      );
      expect(Object.keys(b.receipt).sort()).toEqual(
        [
          'committed_at',
          'component_ids',
          'created',
          'displaced',
          'loom_id',
          'operation_ids',
          'request_id',
          'version',
        ].sort(),
      );
      expect(b.receipt.operation_ids.length).toBeGreaterThanOrEqual(2);
    });

    it('with loom_id extends that loom and bumps its version [LA-40]', async () => {
      const first = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] }));
      const a = await compose({
        request_id: 'r2',
        loom_id: first.receipt.loom_id,
        components: [{ ref: 'page:b' }],
      });
      expect(body(a).receipt).toMatchObject({ loom_id: first.receipt.loom_id, version: 2, created: false });
      expect(a.completed).toEqual(body(a).receipt.operation_ids);
    });

    it('takes 1–100 components; 0 and 101 are bad-args [LA-35]', async () => {
      const none = await compose({ request_id: 'r1', components: [] });
      expect(none).toMatchObject({ ok: false, code: 'bad-args', mayHaveLanded: false });
      expect((none.body as { errors: { path: string }[] }).errors[0]?.path).toBe('/components');
      const many = Array.from({ length: 101 }, (_, i) => ({ ref: `page:p${i}` }));
      expect((await compose({ request_id: 'r2', components: many })).code).toBe('bad-args');
      const hundred = many.slice(0, 100);
      expect((await compose({ request_id: 'r3', components: hundred })).code).toBe('ok');
    });

    it('a component carries exactly one of ref and pattern_ref [LA-36]', async () => {
      const both = await compose({
        request_id: 'r1',
        components: [{ ref: 'page:a', pattern_ref: 'pattern:sp/inst-1' }],
      });
      expect(both.code).toBe('bad-args');
      expect(
        (both.body as { errors: { path: string }[] }).errors.some((e) => e.path === '/components/0'),
      ).toBe(true);
      expect((await compose({ request_id: 'r2', components: [{ title: 'x' }] })).code).toBe('bad-args');
      expect(
        (await compose({ request_id: 'r3', components: [{ pattern_ref: 'pattern:space-1/inst-1' }] })).code,
      ).toBe('ok');
    });

    it('every listed ref kind is accepted and any other prefix is refused [LA-37]', async () => {
      // The eleven kinds are pinned against the seed's list in @harness/commands' authoring test.
      const ok = await compose({ request_id: 'r1', components: REF_KINDS.map((k) => ({ ref: `${k}:x1` })) });
      expect(ok.code).toBe('ok');
      for (const bad of [
        'file:/etc/passwd',
        'piece:old',
        'pattern:sp/i',
        'page:',
        'PAGE:x',
        'javascript:alert(1)',
      ]) {
        const a = await compose({
          request_id: `bad-${bad.length}-${bad.charCodeAt(0)}`,
          components: [{ ref: bad }],
        });
        expect(a.code, bad).toBe('bad-args');
      }
    });

    it('title, stage and focus are optional fields of a component; unknown fields are refused [LA-38]', async () => {
      const a = await compose({
        request_id: 'r1',
        components: [{ ref: 'page:a', title: 'A', stage: 'main', focus: true }],
      });
      expect(a.code).toBe('ok');
      const view = (await store.inspect(body(a).receipt.loom_id))!;
      expect(view.layout.focus).toBe(body(a).receipt.component_ids[0]);
      expect(view.components[0]).toMatchObject({ title: 'A', stage: 'main', kind: 'page' });
      expect(
        (await compose({ request_id: 'r2', components: [{ ref: 'page:a', colour: 'red' }] })).body,
      ).toMatchObject({
        errors: [{ path: '/components/0/colour', message: 'unexpected property "colour"' }],
      });
    });

    it('a title or reference holding NUL is bad-args (no store keeps one); other characters are kept', async () => {
      const ref = await compose({ request_id: 'r1', components: [{ ref: 'page:a\u0000b' }] });
      expect(ref.body).toMatchObject({ errors: [{ path: '/components/0/ref' }] });
      const title = await compose({ request_id: 'r2', components: [{ ref: 'page:a', title: 'x\u0000' }] });
      expect(title.body).toMatchObject({ errors: [{ path: '/components/0/title' }] });
      const odd = 'naïve ✓ \u202e\u0007 \ud83d\ude00';
      const ok = body(await compose({ request_id: 'r3', components: [{ ref: `url:${odd}`, title: odd }] }));
      expect((await store.inspect(ok.receipt.loom_id))?.components[0]?.title).toBe(odd);
    });

    it('expected_version without loom_id is bad-args; a stale one is version_conflict [LA-41]', async () => {
      expect(
        (await compose({ request_id: 'r0', expected_version: 1, components: [{ ref: 'page:a' }] })).code,
      ).toBe('bad-args');
      const first = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] }));
      const id = first.receipt.loom_id;
      expect(
        (
          await compose({
            request_id: 'r2',
            loom_id: id,
            expected_version: 1,
            components: [{ ref: 'page:b' }],
          })
        ).code,
      ).toBe('ok');
      const stale = await compose({
        request_id: 'r3',
        loom_id: id,
        expected_version: 1,
        components: [{ ref: 'page:c' }],
      });
      expect(stale).toMatchObject({
        ok: false,
        code: 'version_conflict',
        mayHaveLanded: false,
        completed: [],
      });
      expect(stale.body).toMatchObject({ expected_version: 1, current_version: 2 });
      expect((await store.inspect(id))!.version).toBe(2);
    });

    it('--expect fills expected_version and guards the same way [LA-41]', async () => {
      const id = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] })).receipt.loom_id;
      const a = await compose(
        { request_id: 'r2', loom_id: id, components: [{ ref: 'page:b' }] },
        { expectedVersion: 5 },
      );
      expect(a.code).toBe('version_conflict');
    });

    it('--loom never makes compose extend a loom (compose has no x-source target) [LA-24]', async () => {
      const id = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] })).receipt.loom_id;
      const a = await compose({ request_id: 'r2', components: [{ ref: 'page:b' }] }, { loomId: id });
      expect(body(a).receipt.created).toBe(true);
      expect(body(a).receipt.loom_id).not.toBe(id);
    });

    it('extending a loom that does not exist is not_found', async () => {
      const a = await compose({
        request_id: 'r1',
        loom_id: 'loom-0000000000000000',
        components: [{ ref: 'page:a' }],
      });
      expect(a).toMatchObject({ ok: false, code: 'not_found', mayHaveLanded: false });
    });
  });

  describe('idempotency and replay', () => {
    it('request_id is required [LA-96]', async () => {
      const a = await compose({ components: [{ ref: 'page:a' }] });
      expect(a.body).toMatchObject({ errors: [{ path: '/request_id' }] });
    });

    it('an identical retry returns the original receipt with replayed: true and commits nothing [LA-100]', async () => {
      const args = { request_id: 'r1', components: [{ ref: 'page:a' }, { ref: 'page:b', title: 'B' }] };
      const first = await compose(args);
      const again = await compose({
        components: [{ ref: 'page:a' }, { title: 'B', ref: 'page:b' }],
        request_id: 'r1',
      });
      expect(again.code).toBe('ok');
      expect(body(again).replayed).toBe(true);
      expect(body(again).receipt).toEqual(body(first).receipt);
      expect((await store.inspect(body(first).receipt.loom_id))!.components).toHaveLength(2);
    });

    it('a replay reports the current version, which may be newer than the receipt [LA-101]', async () => {
      const first = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] }));
      await compose({ request_id: 'r2', loom_id: first.receipt.loom_id, components: [{ ref: 'page:b' }] });
      const replay = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] }));
      expect(replay.receipt.version).toBe(1);
      expect(replay.current_version).toBe(2);
    });

    it('a replay’s current displaced is empty though the receipt recorded an eviction [LA-102]', async () => {
      const comps = Array.from({ length: STAGE_CAPACITY }, (_, i) => ({ ref: `page:s${i}`, stage: 'main' }));
      const id = body(await compose({ request_id: 'fill', components: comps })).receipt.loom_id;
      const args = { request_id: 'evict', loom_id: id, components: [{ ref: 'page:new', stage: 'main' }] };
      const first = body(await compose(args));
      expect(first.displaced).toHaveLength(1);
      expect(first.receipt.displaced).toEqual(first.displaced);
      const replay = body(await compose(args));
      expect(replay.replayed).toBe(true);
      expect(replay.receipt.displaced).toHaveLength(1);
      expect(replay.displaced).toEqual([]);
    });

    it('a replay completes nothing: completed is empty [LA-103]', async () => {
      const args = { request_id: 'r1', components: [{ ref: 'page:a' }] };
      expect((await compose(args)).completed.length).toBeGreaterThan(0);
      expect((await compose(args)).completed).toEqual([]);
    });

    it('the same request_id with different arguments is request_conflict [LA-107]', async () => {
      await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] });
      const a = await compose({ request_id: 'r1', components: [{ ref: 'page:other' }] });
      expect(a).toMatchObject({ ok: false, code: 'request_conflict', mayHaveLanded: false });
      expect(a.body).toMatchObject({ request_id: 'r1' });
    });

    it('request ids are scoped to the broker’s run and agent namespace [LA-117]', async () => {
      const other = await hostFor({ run: 'run-2', agent: 'editor' });
      try {
        const args = { request_id: 'same', components: [{ ref: 'page:a' }] };
        const mine = body(await compose(args));
        const theirs = await other.host.run({ op: 'run', command: 'loom.compose', args });
        expect(body(theirs).replayed).toBe(false);
        expect(body(theirs).receipt.loom_id).not.toBe(mine.receipt.loom_id);
      } finally {
        other.store.close();
      }
    });
  });

  describe('the stage model', () => {
    it(`places at most ${STAGE_CAPACITY} on a stage; the longest placed moves to the shelf and is reported displaced`, async () => {
      const comps = Array.from({ length: STAGE_CAPACITY }, (_, i) => ({ ref: `page:s${i}`, stage: 'main' }));
      const fill = body(await compose({ request_id: 'fill', components: comps }));
      expect(fill.displaced).toEqual([]);
      const next = body(
        await compose({
          request_id: 'more',
          loom_id: fill.receipt.loom_id,
          components: [
            { ref: 'page:n1', stage: 'main' },
            { ref: 'page:n2', stage: 'main' },
            { ref: 'page:side', stage: 'aside' },
          ],
        }),
      );
      expect(next.displaced).toEqual(fill.receipt.component_ids.slice(0, 2));
      const view = (await store.inspect(fill.receipt.loom_id))!;
      expect(view.layout.stages.main).toHaveLength(STAGE_CAPACITY);
      expect(view.layout.stages.aside).toEqual([next.receipt.component_ids[2]]);
      expect(view.layout.shelf).toEqual(fill.receipt.component_ids.slice(0, 2));
    });

    it('refuses one call that places more than a stage holds, or gives focus twice', async () => {
      const comps = Array.from({ length: STAGE_CAPACITY + 1 }, (_, i) => ({
        ref: `page:s${i}`,
        stage: 'main',
      }));
      expect((await compose({ request_id: 'r1', components: comps })).body).toMatchObject({
        errors: [{ path: `/components/${STAGE_CAPACITY}/stage` }],
      });
      const two = await compose({
        request_id: 'r2',
        components: [
          { ref: 'page:a', focus: true },
          { ref: 'page:b', focus: true },
        ],
      });
      expect(two.body).toMatchObject({ errors: [{ path: '/components/1/focus' }] });
    });
  });

  describe('atomic commit [LA-97]', () => {
    it('a failure while writing the receipt leaves no loom, component or operation behind [LA-97]', async () => {
      const restore = await kind.failInserts('receipts');
      const a = await compose({ request_id: 'r1', components: [{ ref: 'page:a' }, { ref: 'page:b' }] });
      expect(a).toMatchObject({ ok: false, code: 'internal', mayHaveLanded: false });
      const count = async (t: string) => Number((await kind.sql(`SELECT COUNT(*) AS n FROM ${t}`))[0]?.n);
      expect([
        await count('looms'),
        await count('components'),
        await count('operations'),
        await count('receipts'),
      ]).toEqual([0, 0, 0, 0]);
      await restore();
      expect(
        (await compose({ request_id: 'r1', components: [{ ref: 'page:a' }, { ref: 'page:b' }] })).code,
      ).toBe('ok');
    });
  });

  describe('loom.inspect', () => {
    it('reads the current version, component metadata and layout of one loom [LA-42]', async () => {
      const r = body(
        await compose({
          request_id: 'r1',
          components: [{ ref: 'page:a', title: 'A', stage: 'main' }, { ref: 'thread:t' }],
        }),
      );
      const a = await host.run({ op: 'run', command: 'loom.inspect', args: { loom_id: r.receipt.loom_id } });
      expect(a).toMatchObject({ ok: true, code: 'ok', mayHaveLanded: false, completed: [] });
      expect(a.body).toMatchObject({
        loom_id: r.receipt.loom_id,
        version: 1,
        components: [
          { id: r.receipt.component_ids[0], kind: 'page', title: 'A', stage: 'main', position: 0 },
          { id: r.receipt.component_ids[1], kind: 'thread', title: null, stage: null, position: 1 },
        ],
        layout: {
          stages: { main: [r.receipt.component_ids[0]] },
          shelf: [r.receipt.component_ids[1]],
          focus: null,
        },
      });
    });

    it('grants no handles: no component reference appears in the answer [LA-43]', async () => {
      const r = body(
        await compose({
          request_id: 'r1',
          components: [{ ref: 'page:secret-address' }, { pattern_ref: 'pattern:sp/inst' }],
        }),
      );
      const a = await host.run({ op: 'run', command: 'loom.inspect', args: { loom_id: r.receipt.loom_id } });
      const text = JSON.stringify(a);
      expect(text).not.toContain('secret-address');
      expect(text).not.toContain('pattern:sp');
    });

    it('returns only version, components and layout (no renderer internals) [LA-44]', async () => {
      const r = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] }));
      const a = await host.run({ op: 'run', command: 'loom.inspect', args: { loom_id: r.receipt.loom_id } });
      expect(Object.keys(a.body as object).sort()).toEqual([
        'components',
        'created_at',
        'layout',
        'loom_id',
        'updated_at',
        'version',
      ]);
    });

    it('takes loom_id from --loom (x-source: "loom"), and a missing loom is not_found', async () => {
      const r = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] }));
      const a = await host.run({ op: 'run', command: 'loom.inspect', args: {}, loomId: r.receipt.loom_id });
      expect(a.code).toBe('ok');
      const missing = await host.run({
        op: 'run',
        command: 'loom.inspect',
        args: { loom_id: 'loom-ffffffffffffffff' },
      });
      expect(missing).toMatchObject({ ok: false, code: 'not_found' });
      const clash = await host.run({
        op: 'run',
        command: 'loom.inspect',
        args: { loom_id: 'loom-a' },
        loomId: 'loom-b',
      });
      expect(clash.code).toBe('bad-args');
    });

    it('a legacy piece: reference reads with kind pattern [LA-67]', async () => {
      const r = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] }));
      await kind.sql("UPDATE components SET ref = 'piece:legacy/1' WHERE id = ?", [
        r.receipt.component_ids[0],
      ]);
      expect((await store.inspect(r.receipt.loom_id))!.components[0]!.kind).toBe('pattern');
    });
  });

  describe('loom.authoring-context', () => {
    const ctx = (args: Record<string, unknown>, loomId?: string) =>
      host.run({ op: 'run', command: 'loom.authoring-context', args, ...(loomId ? { loomId } : {}) });

    it('returns at most 32 receipts, newest first [LA-45]', async () => {
      for (let i = 0; i < 34; i++) await compose({ request_id: `r${i}`, components: [{ ref: `page:${i}` }] });
      const a = await ctx({});
      const receipts = (a.body as { receipts: { request_id: string }[] }).receipts;
      expect(receipts).toHaveLength(32);
      expect(receipts[0]!.request_id).toBe('r33');
    });

    it('receipts come only from this run’s actor namespace [LA-46]', async () => {
      await compose({ request_id: 'mine', components: [{ ref: 'page:a' }] });
      const other = await hostFor({ run: 'run-1', agent: 'reader' });
      try {
        await other.host.run({
          op: 'run',
          command: 'loom.compose',
          args: { request_id: 'theirs', components: [{ ref: 'page:b' }] },
        });
        const a = await ctx({});
        expect((a.body as { receipts: { request_id: string }[] }).receipts.map((r) => r.request_id)).toEqual([
          'mine',
        ]);
      } finally {
        other.store.close();
      }
    });

    it('returns the bound target beside the receipts [LA-47]', async () => {
      const id = body(await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] })).receipt.loom_id;
      const a = await ctx({}, id);
      expect(a.body).toMatchObject({ target: { loom_id: id, version: 1 } });
    });

    it('history is not work done now: completed is empty and nothing lands [LA-49]', async () => {
      await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] });
      expect(await ctx({})).toMatchObject({ ok: true, completed: [], mayHaveLanded: false });
    });

    it('a missing implicit origin (--loom) is reported unavailable beside the receipts [LA-50]', async () => {
      await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] });
      const a = await ctx({}, 'loom-0000000000000000');
      expect(a).toMatchObject({
        ok: true,
        body: { target: null, target_unavailable: { loom_id: 'loom-0000000000000000', reason: 'not_found' } },
      });
      expect((a.body as { receipts: unknown[] }).receipts).toHaveLength(1);
    });

    it('an explicitly requested missing target is an error [LA-51]', async () => {
      expect(await ctx({ loom_id: 'loom-0000000000000000' })).toMatchObject({ ok: false, code: 'not_found' });
    });

    it('history never selects a write target: compose after a context read still creates [LA-48]', async () => {
      await compose({ request_id: 'r1', components: [{ ref: 'page:a' }] });
      await ctx({});
      expect(body(await compose({ request_id: 'r2', components: [{ ref: 'page:b' }] })).receipt.created).toBe(
        true,
      );
    });
  });
});
