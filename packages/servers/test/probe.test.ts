// The client against a real SDK server (test/fixtures/probe-server.mjs), unconfined: content
// kinds, errors, refused requests, cancellation upstream, a changing listing, death and close.
import { LINUX, needs, processesWith, until } from '@harness/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerClient, type ServerClient } from '../src/index';
import { fixtureSpec, gone } from './helpers';

const bounds = { timeoutMs: 15_000, maxOutputBytes: 64 * 1024 };

describe('a stdio server harness starts itself', () => {
  let client: ServerClient;
  beforeAll(() => {
    client = createServerClient(fixtureSpec('probe', 'probe-server.mjs'));
  });
  afterAll(() => client.close());

  it('starts on the first need and answers the listing, saying it runs unconfined when its spec asks no sandbox', async () => {
    expect(client.state()).toMatchObject({ state: 'idle', restarts: 0 });
    const listing = await client.tools();
    expect(listing.ok).toBe(true);
    if (!listing.ok) return;
    expect(listing.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['read-file', 'rich', 'ask', 'wait']),
    );
    const readFile = listing.tools.find((t) => t.name === 'read-file');
    expect(readFile?.inputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
    const state = client.state();
    expect(state).toMatchObject({
      id: 'probe',
      state: 'ready',
      restarts: 0,
      toolCount: listing.tools.length,
    });
    expect(state.confinement).toEqual({ confined: false, reason: 'the server spec asks for no sandbox' });
    expect(state.pid).toBeGreaterThan(0);
  });

  it('joins text contents and summarises images, audio, resources and links, with the structured content [SV-15]', async () => {
    const outcome = await client.call('rich', {}, bounds);
    expect(outcome).toMatchObject({
      status: 'ok',
      outputExceeded: false,
      structured: { n: 1, word: 'structured' },
    });
    if (outcome.status !== 'ok') return;
    expect(outcome.text.split('\n')).toEqual([
      'first',
      '[image image/png, 12345 bytes]',
      '[audio audio/wav, 10 bytes]',
      '[resource file:///x, text/plain, 120 bytes]',
      '[resource file:///y.bin, unknown type, 7 bytes]',
      '[resource link file:///z]',
      'last',
    ]);
  });

  it('answers a result the tool marked isError as status tool_error with its text [SV-15]', async () => {
    expect(await client.call('fail', {}, bounds)).toMatchObject({
      status: 'tool_error',
      text: 'the tool says no',
    });
  });

  it('cuts text over maxOutputBytes at a character boundary and leaves out structured content over it [SV-15]', async () => {
    const cut = await client.call('big', { count: 1000 }, { ...bounds, maxOutputBytes: 101 });
    expect(cut).toMatchObject({ status: 'ok', outputExceeded: true });
    if (cut.status === 'ok') expect(cut.text).toBe('é'.repeat(50));
    const rich = await client.call('rich', {}, { ...bounds, maxOutputBytes: 20 });
    expect(rich).toMatchObject({ status: 'ok', outputExceeded: true });
    if (rich.status === 'ok') expect(rich.structured).toBeUndefined();
  });

  it("answers an unknown tool as the server does (the SDK's McpServer: a result marked isError)", async () => {
    const outcome = await client.call('no-such-tool', {}, bounds);
    expect(outcome).toMatchObject({ status: 'tool_error', text: expect.stringContaining('not found') });
  });

  it.each(['sampling/createMessage', 'elicitation/create', 'roots/list'])(
    'refuses a %s request from the server at once, telling the server why [SV-16]',
    async (method) => {
      const outcome = await client.call('ask', { method }, { ...bounds, timeoutMs: 5_000 });
      expect(outcome.status).toBe('ok');
      if (outcome.status !== 'ok') return;
      expect(outcome.text).toContain('refused:');
      expect(outcome.text).toContain('harness does not forward sampling, elicitation or roots requests');
      expect(client.logs()).toContain(`refused ${method} from server probe`);
    },
  );

  it('cancels a call upstream past its timeout, may-have-landed unknown, and the server stays usable [SV-14]', async () => {
    const outcome = await client.call('wait', {}, { ...bounds, timeoutMs: 300 });
    expect(outcome).toMatchObject({ status: 'timeout', mayHaveLanded: 'unknown' });
    if (outcome.status === 'timeout') expect(outcome.message).toContain('probe');
    await until(
      () => client.logs().includes('cancelled upstream'),
      'the server to log the cancellation it received',
    );
    expect(await client.call('fail', {}, bounds)).toMatchObject({ status: 'tool_error' });
  });

  it("cancels a call upstream on the caller's signal, as cancelled", async () => {
    const controller = new AbortController();
    const before = client.logs().split('cancelled upstream').length;
    const waiting = client.logs().split('waiting').length;
    const pending = client.call('wait', {}, { ...bounds, signal: controller.signal });
    await until(() => client.logs().split('waiting').length > waiting, 'the server to receive the call');
    controller.abort();
    expect(await pending).toMatchObject({ status: 'cancelled', mayHaveLanded: 'unknown' });
    await until(
      () => client.logs().split('cancelled upstream').length > before,
      'the second cancellation upstream',
    );
    const already = await client.call('fail', {}, { ...bounds, signal: controller.signal });
    expect(already).toMatchObject({ status: 'cancelled', mayHaveLanded: false });
  });

  it('re-reads the listing on notifications/tools/list_changed and tells its listeners', async () => {
    let told = 0;
    const off = client.onToolsChanged(() => told++);
    expect(await client.call('add-tool', { name: 'late-tool' }, bounds)).toMatchObject({ status: 'ok' });
    await until(() => told > 0, 'the tools-changed listener');
    off();
    const listing = await client.tools();
    expect(listing.ok && listing.tools.some((t) => t.name === 'late-tool')).toBe(true);
  });
});

needs(LINUX).describe('a server that dies or is closed', () => {
  it('answers a call whose server is killed mid-call as died, may-have-landed unknown, and restarts it on a later call after the backoff [SV-14]', async () => {
    const client = createServerClient(fixtureSpec('dying', 'probe-server.mjs'));
    try {
      expect((await client.tools()).ok).toBe(true);
      const pid = client.state().pid as number;
      const pending = client.call('wait', {}, bounds);
      await until(() => client.logs().includes('waiting'), 'the server to receive the call');
      process.kill(pid, 'SIGKILL');
      const outcome = await pending;
      expect(outcome).toMatchObject({ status: 'died', mayHaveLanded: 'unknown' });
      if (outcome.status === 'died') expect(outcome.message).toMatch(/dying.*SIGKILL/);
      expect(client.state()).toMatchObject({ state: 'failed', restarts: 0 });
      const early = await client.call('fail', {}, bounds);
      expect(early).toMatchObject({ status: 'failed', mayHaveLanded: false });
      if (early.status === 'failed') expect(early.message).toMatch(/next start attempt is in \d+ ms/);
      const later = await until(async () => {
        const o = await client.call('fail', {}, bounds);
        return o.status === 'tool_error' && o;
      }, 'a call after the backoff to restart the server');
      expect(later.status).toBe('tool_error');
      expect(client.state()).toMatchObject({ state: 'ready', restarts: 1 });
      expect(client.state().pid).not.toBe(pid);
    } finally {
      await client.close();
    }
  });

  it("ends the server's whole process tree on close, children included", async () => {
    const client = createServerClient(fixtureSpec('tree', 'probe-server.mjs'));
    expect((await client.tools()).ok).toBe(true);
    const pid = client.state().pid as number;
    const tag = `harness-servers-tree-child-${process.pid}`;
    expect(await client.call('spawn-child', { tag }, bounds)).toMatchObject({ status: 'ok' });
    expect(processesWith(tag)).toHaveLength(1);
    await client.close();
    expect(client.state().state).toBe('closed');
    await until(() => gone(pid) && processesWith(tag).length === 0, 'the server and its child to be gone');
    expect(await client.tools()).toEqual({ ok: false, message: 'server tree is closed' });
  });
});
