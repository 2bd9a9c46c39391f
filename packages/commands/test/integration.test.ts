// Integration against the REAL reference host: apps/loom/dist/loom.js and a real broker per scope.
// Skipped outside CI, with one line saying so, when the loom CLI has not been built.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { needs } from '@harness/test-utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import type { CommandsConfig } from '../src/config';
import { createHostClient } from '../src/host/client';
import type { HostClient, ListOutcome } from '../src/host/types';
import { createHostCommandTools } from '../src/host-command-tools';
import { createLoomAuthoringTools } from '../src/loom-authoring-tools';
import { createRun } from '../src/run';
import { checkedTools } from './helpers/outcomes';
import { LOOM_JS, REAL_HOST, type RealBroker, startRealBroker } from './helpers/real-host';
import { admitted, toolOf, withStatus } from './helpers/tools';

needs(REAL_HOST).each(['cli', 'socket'] as const)(
  'the real reference host (apps/loom/dist/loom.js, a broker per scope) over the %s client',
  (kind) => {
    let reader: RealBroker;
    let editor: RealBroker;
    const clients: HostClient[] = [];
    const config = (b: RealBroker): CommandsConfig => ({
      cliPath: LOOM_JS,
      transport: { kind: 'broker', socketPath: b.queuePath, client: kind },
      timeoutMs: 20_000,
    });
    const client = (b: RealBroker) => {
      const c = createHostClient(config(b));
      clients.push(c);
      return c;
    };
    const tools = (b: RealBroker) => {
      const c = client(b);
      const all = [
        // Every result through the real host is checked against its tool's outcome schema.
        ...checkedTools(createHostCommandTools({ config: config(b), client: c })),
        ...checkedTools(createLoomAuthoringTools({ config: config(b), client: c })),
      ];
      return {
        list_commands: toolOf(all, 'list_commands'),
        run_read_command: toolOf(all, 'run_read_command'),
        loom_compose: toolOf(all, 'loom_compose'),
        loom_inspect: toolOf(all, 'loom_inspect'),
        loom_authoring_context: toolOf(all, 'loom_authoring_context'),
      };
    };
    /** A listing the client read whole; the test fails on an unchanged or failed one. */
    const whole = (listed: ListOutcome) => {
      if (!listed.ok || !('listing' in listed))
        throw new Error(`expected a listing, found ${JSON.stringify(listed)}`);
      return {
        ...listed,
        commands: z.object({ commands: z.array(z.unknown()) }).parse(listed.listing).commands,
      };
    };

    beforeAll(async () => {
      [reader, editor] = await Promise.all([startRealBroker('reader'), startRealBroker('editor')]);
    }, 60_000);
    afterAll(async () => {
      for (const c of clients) await c.close();
      await Promise.all([reader?.stop(), editor?.stop()]);
    });

    it('the reader broker lists only what its scope admits, reads stamped readOnlyGranted [HC-09, HC-24, HC-42]', async () => {
      const t = tools(reader);
      const run = createRun({ mode: 'enforce-explicit' });
      const r = withStatus(await t.list_commands.execute({}, { run, slot: 'direct-command' }), 'ok');
      const names = r.entries.map((e) => e.name);
      expect(names).toContain('repo.log');
      expect(names).toContain('echo.argv');
      expect(names).not.toContain('repo.tag');
      expect(names).not.toContain('loom.compose');
      expect(r.entries.find((e) => e.name === 'repo.log')?.readOnlyGranted).toBe(true);
    });

    it('run_read_command runs a granted read through the broker with --read-only; a hostile value stays one argument [HC-28, HC-157]', async () => {
      const t = tools(reader);
      const run = createRun({ mode: 'enforce-strict' });
      const value = '; rm -rf / $(whoami) --not-a-flag';
      const r = withStatus(
        await t.run_read_command.execute({ command: 'echo.argv', args: { value } }, { run, slot: 'context' }),
        'executed',
      );
      expect(r.outcome).toMatchObject({ ok: true });
      expect(JSON.stringify(admitted(r.entry).value)).toContain(JSON.stringify(value).slice(1, -1));
    });

    it('a fresh listing asks the broker every time and keeps the held catalog while the broker says it is unchanged', async () => {
      const c = client(reader);
      const first = whole(await c.list({ ifNoneMatch: '' }));
      if (kind === 'cli') {
        // The CLI path has no etag: every read is a whole listing.
        expect(first.commands.length).toBeGreaterThan(0);
        return;
      }
      expect(first.etag).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(await c.list({ ifNoneMatch: first.etag })).toEqual({
        ok: true,
        unchanged: true,
        etag: first.etag,
      });
      expect(whole(await c.list({ ifNoneMatch: 'stale' })).commands).toEqual(first.commands);
      const t = tools(reader);
      const run = createRun({ mode: 'enforce-strict' });
      const call = () =>
        t.run_read_command.execute({ command: 'echo.argv', args: { value: 'x' } }, { run, slot: 'context' });
      expect((await call()).status).toBe('executed');
      const held = run.catalog;
      expect((await call()).status).toBe('executed');
      expect(run.catalog).toBe(held);
    });

    it('a grant changed between two run_read_command calls is honoured on the second, though the run holds a catalog [HC-37, HC-156]', async () => {
      const own = await startRealBroker('reader');
      try {
        const t = tools(own);
        const run = createRun({ mode: 'enforce-strict' });
        const call = () =>
          t.run_read_command.execute(
            { command: 'echo.argv', args: { value: 'x' } },
            { run, slot: 'context' },
          );
        expect(await call()).toMatchObject({ status: 'executed', outcome: { ok: true } });
        expect(run.catalog?.byName.get('echo.argv')?.readOnlyGranted).toBe(true);

        // The person narrows the grant: the same agent, read-only execution of repo.log alone.
        const narrower = join(own.dir, 'narrower.yaml');
        writeFileSync(narrower, 'run: demo-run\nagent: reader\nreadOnly: [repo.log]\nbuiltins: false\n');
        await own.restart(narrower);
        // Refused by the harness from the fresh listing, before anything is sent: a stale catalog
        // would have sent it and read the broker's refusal as an executed call.
        expect(await call()).toMatchObject({
          status: 'not_granted',
          landed: 'no',
          reasonCode: 'read_only_not_granted',
        });
        expect(run.catalog?.byName.get('echo.argv')?.readOnlyGranted).toBe(false);

        // Then withdraws the command: the fresh listing no longer shows it.
        const without = join(own.dir, 'without.yaml');
        writeFileSync(without, 'run: demo-run\nagent: reader\ngrants: [pack:repo]\nbuiltins: false\n');
        await own.restart(without);
        expect(await call()).toMatchObject({ status: 'unknown_command' });
      } finally {
        await own.stop();
      }
      // Three broker starts, each a Node start of the loom CLI.
    }, 90_000);

    it('the broker refuses a command outside its scope and a --read-only run of a write [HC-10, HC-159]', async () => {
      const c = client(reader);
      const out = await c.run({ command: 'repo.tag', args: { name: 'x' } });
      expect(out).toMatchObject({ ok: false, code: 'forbidden' });
      const e = client(editor);
      const ro = await e.run(
        { command: 'json-tools.edit-in-place', args: { filter: '.', file: 'data/x.json' } },
        { readOnly: true },
      );
      expect(ro).toMatchObject({ ok: false, code: 'forbidden' });
    });

    it('a batch of reads runs through the real broker with one result per call [HC-32, HC-93]', async () => {
      const t = tools(reader);
      const run = createRun({ mode: 'disabled' });
      const r = withStatus(
        await t.run_read_command.execute(
          {
            calls: Array.from({ length: 6 }, (_, i) => ({ command: 'echo.argv', args: { value: `v${i}` } })),
          },
          { run },
        ),
        'batch',
      );
      expect(r.results.map((x) => x.status)).toEqual(Array(6).fill('executed'));
    });

    it('the editor composes a loom, inspects it, and an identical retry replays the receipt [LA-39, LA-42, LA-98, LA-100]', async () => {
      const t = tools(editor);
      const run = createRun({ mode: 'enforce-explicit' });
      const ctx = { run, slot: 'direct-command' as const };
      const input = {
        request_id: `req-${kind}`,
        components: [
          { ref: 'page:home', title: 'Home', stage: 'main', focus: true },
          { ref: 'url:https://example.com' },
        ],
      };
      const a = withStatus(await t.loom_compose.execute(input, ctx), 'ok');
      expect(a).toMatchObject({ kind: 'loom-authored', replayed: false });
      expect(a.receipt.component_ids).toHaveLength(2);
      const v = await t.loom_inspect.execute({ loom_id: a.receipt.loom_id }, ctx);
      expect(v).toMatchObject({ status: 'ok', loom_id: a.receipt.loom_id, version: a.receipt.version });
      expect(JSON.stringify(v)).not.toContain('page:home');
      const b = withStatus(await t.loom_compose.execute(input, ctx), 'ok');
      expect(b).toMatchObject({ replayed: true, displaced: [] });
      expect(b.receipt).toEqual(a.receipt);
      const h = withStatus(await t.loom_authoring_context.execute({}, ctx), 'ok');
      expect(h.receipts.map((x) => x.request_id)).toContain(`req-${kind}`);
      const conflict = await t.loom_compose.execute({ ...input, components: [{ ref: 'page:other' }] }, ctx);
      expect(conflict).toMatchObject({ status: 'refused', code: 'request_conflict' });
    });

    it('the reader broker does not grant loom.compose; the tool reports a refusal, not a host error [LA-34, LA-52]', async () => {
      const t = tools(reader);
      const r = await t.loom_compose.execute(
        { request_id: 'r1', components: [{ ref: 'page:a' }] },
        { run: createRun({ mode: 'disabled' }) },
      );
      expect(r).toMatchObject({ status: 'refused', code: 'forbidden' });
    });
  },
);
