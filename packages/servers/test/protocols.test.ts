// The upstream client negotiates the protocol version with each server: 2026-07-28 with a server
// that speaks only it (test/fixtures/modern-server.mjs, on the v2 SDK), over stdio and over HTTP,
// and the 2025 handshake with a server on the v1 SDK (test/fixtures/probe-server.mjs).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerClient, type ServerClient } from '../src/index';
import { FIXTURES, fixtureSpec } from './helpers';

const bounds = { timeoutMs: 15_000, maxOutputBytes: 64 * 1024 };

describe('the upstream client negotiates the protocol version', () => {
  const clients: ServerClient[] = [];
  const track = (c: ServerClient) => {
    clients.push(c);
    return c;
  };
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  it('speaks 2026-07-28 with a server on stdio that refuses the 2025 handshake', async () => {
    const client = track(createServerClient(fixtureSpec('modern', 'modern-server.mjs')));
    const listing = await client.tools();
    expect(listing).toMatchObject({ ok: true, tools: [{ name: 'shout' }] });
    expect(client.state()).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    expect(await client.call('shout', { text: 'both eras' }, bounds)).toMatchObject({
      status: 'ok',
      text: 'BOTH ERAS',
    });
  });

  it('speaks 2026-07-28 with such a server over streamable HTTP', async () => {
    const child = spawn(process.execPath, [`${FIXTURES}modern-server.mjs`], {
      env: { ...process.env, MODERN_HTTP: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`the HTTP server exited ${code}`)));
      });
      const client = track(
        createServerClient({
          id: 'modern-http',
          transport: { kind: 'http', url, headers: {} },
          startTimeoutMs: 15_000,
        }),
      );
      expect(await client.tools()).toMatchObject({ ok: true, tools: [{ name: 'shout' }] });
      expect(client.state()).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
      expect(await client.call('shout', { text: 'over http' }, bounds)).toMatchObject({
        status: 'ok',
        text: 'OVER HTTP',
      });
    } finally {
      child.kill();
    }
  });

  it('falls back to the 2025 handshake with a server on the v1 SDK, on the same process', async () => {
    const client = track(createServerClient(fixtureSpec('legacy', 'probe-server.mjs')));
    const listing = await client.tools();
    expect(listing.ok).toBe(true);
    expect(client.state()).toMatchObject({ state: 'ready', restarts: 0, protocolVersion: '2025-11-25' });
    expect(await client.call('fail', {}, bounds)).toMatchObject({ status: 'tool_error' });
  });

  it('starts a 2025 server that exits on the version question again, for the 2025 handshake only', async () => {
    const client = track(createServerClient(fixtureSpec('strict', 'strict-2025-server.mjs')));
    expect(await client.tools()).toMatchObject({ ok: true, tools: [{ name: 'hello' }] });
    expect(client.state()).toMatchObject({ state: 'ready', restarts: 0, protocolVersion: '2025-06-18' });
    expect(client.logs()).toContain('strict-2025: server/discover before initialize; exiting');
    expect(await client.call('hello', {}, bounds)).toMatchObject({ status: 'ok', text: 'hello from 2025' });
  });
});
