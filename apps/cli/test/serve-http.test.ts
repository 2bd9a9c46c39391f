// harness serve over streamable HTTP: the real MCP SDK client (StreamableHTTPClientTransport)
// against the real bin, the URL read from what serve prints on stderr.
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { processesWith, until } from '@harness/test-utils';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, get, runCli, sandbox, slowWorkspace, startHttp, structured } from './helpers';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

function post(url: URL, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(initialize),
  });
}

/** POSTs `initialize` with explicit Host and Origin headers (fetch cannot set Host) and returns the status. */
function postWith(url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(initialize));
  });
}

/** POSTs `bytes` of body in chunks, with no declared length, and returns the answer once it arrives. */
function postStreamed(url: URL, token: string, bytes: number): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'transfer-encoding': 'chunked',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

const tooLarge = (held: string) =>
  `Invalid Request: an MCP message to harness serve may hold at most 4194304 bytes (4 MiB), this one held ${held}; it was discarded unread. Send less in one message: split a run_command batch into several calls, and keep large content out of tool arguments.`;

describe('harness serve --http on loopback', () => {
  const box = sandbox();
  let server: Awaited<ReturnType<typeof startHttp>>;
  beforeAll(async () => {
    server = await startHttp(
      ['--http', '127.0.0.1:0', '--instance', box.instance, '--workspace', slowWorkspace],
      box.home,
    );
  });
  afterAll(async () => {
    await server?.stop();
    box.cleanup();
  });

  it('answers 403 to a request naming another host or sent from another origin (DNS rebinding, cross-site pages)', async () => {
    const port = server.url.port;
    expect(await postWith(server.url, { host: `evil.example:${port}` })).toBe(403);
    expect(await postWith(server.url, { host: `127.0.0.1:${port}`, origin: 'https://evil.example' })).toBe(
      403,
    );
    expect(
      await postWith(server.url, {
        host: `localhost:${port}`,
        origin: `http://localhost:${port}`,
        authorization: `Bearer ${server.token}`,
      }),
    ).toBe(200);
    expect(
      await postWith(server.url, { host: `127.0.0.1:${port}`, authorization: `Bearer ${server.token}` }),
    ).toBe(200);
  });

  it('answers a body over 4 MiB with 413 and an Invalid Request error naming the limit, by its declared length or as it streams, then serves the next request [SEC-19]', async () => {
    const declared = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${server.token}`,
      },
      body: 'x'.repeat(12 * 1024 * 1024),
    });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: tooLarge('12582912 bytes'),
        data: { maxBytes: 4194304, bytes: 12582912 },
      },
    });
    expect(await postStreamed(server.url, server.token, 12 * 1024 * 1024)).toEqual({
      status: 413,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: tooLarge('more than that'), data: { maxBytes: 4194304 } },
      },
    });
    expect((await post(server.url, { authorization: `Bearer ${server.token}` })).status).toBe(200);
  });

  it('answers a body that is not JSON with 400 and a Parse error [SEC-19]', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${server.token}`,
      },
      body: '{"jsonrpc": "2.0",',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error: the body is not JSON \(.+\)$/) },
    });
  });

  it('prints the URL it listens on, on an ephemeral loopback port', () => {
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(Number(server.url.port)).toBeGreaterThan(0);
    expect(server.url.pathname).toBe('/mcp');
  });

  it('lists tools and answers list_commands, run_command (single and batch) and run_read_command', async () => {
    const client = await connectHttp(server.url, server.token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('run_read_command');
      const listing = structured(await client.callTool({ name: 'list_commands', arguments: {} }));
      expect(listing.status).toBe('ok');
      const read = structured(
        await client.callTool({
          name: 'run_read_command',
          arguments: { command: 'echo.argv', args: { value: 'over http' } },
        }),
      );
      expect(get(read, 'entry', 'value', 'output')).toEqual(['over http']);
      const single = structured(
        await client.callTool({
          name: 'run_command',
          arguments: { command: 'echo.argv', args: { value: 's' } },
        }),
      );
      expect(single.status).toBe('executed');
      const batch = structured(
        await client.callTool({
          name: 'run_command',
          arguments: {
            calls: [
              { command: 'echo.argv', args: { value: '1' } },
              { command: 'echo.argv', args: { value: '2' } },
            ],
          },
        }),
      );
      expect((batch.results as unknown[]).length).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('gives each HTTP session its own run (output ids restart per session)', async () => {
    const a = await connectHttp(server.url, server.token);
    const b = await connectHttp(server.url, server.token);
    try {
      const ra = structured(await a.callTool({ name: 'list_commands', arguments: {} }));
      const rb = structured(await b.callTool({ name: 'list_commands', arguments: {} }));
      expect(String(ra.outputId).replace(/\d+$/, '')).not.toBe(String(rb.outputId).replace(/\d+$/, ''));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('cancels a slow call over HTTP: the client settles at once', async () => {
    const client = await connectHttp(server.url, server.token);
    try {
      const controller = new AbortController();
      const pending = client.callTool(
        { name: 'run_read_command', arguments: { command: 'slow.wait', args: { seconds: 2.93 } } },
        CallToolResultSchema,
        { signal: controller.signal },
      );
      // Cancelled while its command runs (the only process whose argv ends in 2.93).
      await until(() => processesWith('2.93').length > 0, 'the command of the call to run');
      const aborted = Date.now();
      controller.abort('test cancelled');
      await expect(pending).rejects.toThrow();
      expect(Date.now() - aborted).toBeLessThan(2000);
    } finally {
      await client.close();
    }
  });
});

describe('harness serve --http requires a bearer token on every listener [SEC-6]', () => {
  it('generates a token into the instance directory (mode 0600) when none is given, prints where, and answers 401 without it', async () => {
    const box = sandbox();
    const server = await startHttp(
      ['--http', '127.0.0.1:0', '--instance', box.instance, '--workspace', slowWorkspace],
      box.home,
    );
    try {
      const file = join(box.instance, 'http-token');
      expect(server.stderr()).toContain(`bearer token in ${file}`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(server.stderr()).not.toContain(server.token);
      // Another user of the machine reaches loopback too: without the token, nothing.
      const none = await post(server.url);
      expect(none.status).toBe(401);
      expect(await none.text()).toContain('missing or wrong bearer token');
      const client = await connectHttp(server.url, server.token);
      expect(structured(await client.callTool({ name: 'list_commands', arguments: {} })).status).toBe('ok');
      await client.close();
    } finally {
      await server.stop();
    }
    // A restart reuses the token, so configured clients keep working.
    const again = await startHttp(
      ['--http', '127.0.0.1:0', '--instance', box.instance, '--workspace', slowWorkspace],
      box.home,
    );
    try {
      expect(again.token).toBe(server.token);
    } finally {
      await again.stop();
      box.cleanup();
    }
  });

  it('refuses --token: a token in argv is visible to every user through ps', async () => {
    const box = sandbox();
    try {
      const r = await runCli(
        ['serve', '--http', '127.0.0.1:0', '--token', 'X-secret-secret-secret', '--instance', box.instance],
        {
          home: box.home,
        },
      );
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('visible to every user of the machine through ps');
      expect(r.stderr).not.toContain('X-secret');
    } finally {
      box.cleanup();
    }
  });

  it('takes the token from --token-file, refusing a file others may read', async () => {
    const box = sandbox();
    mkdirSync(box.home, { recursive: true });
    const file = join(box.home, 'token');
    writeFileSync(file, 'T-file-token-0123456789\n', { mode: 0o644 });
    try {
      const loose = await runCli(
        ['serve', '--http', '127.0.0.1:0', '--token-file', file, '--instance', box.instance],
        {
          home: box.home,
        },
      );
      expect(loose.code).toBe(3);
      expect(loose.stderr).toContain(`may be read by other users (mode 644); run chmod 600 ${file}`);
      chmodSync(file, 0o600);
      const server = await startHttp(
        [
          '--http',
          '127.0.0.1:0',
          '--token-file',
          file,
          '--instance',
          box.instance,
          '--workspace',
          slowWorkspace,
        ],
        box.home,
      );
      try {
        expect(server.token).toBe('T-file-token-0123456789');
        expect((await post(server.url, { authorization: 'Bearer T-file-token-0123456789' })).status).toBe(
          200,
        );
        expect((await post(server.url, { authorization: 'Bearer wrong' })).status).toBe(401);
      } finally {
        await server.stop();
      }
    } finally {
      box.cleanup();
    }
  });

  it('caps live sessions (503 past the cap) and closes idle ones, which frees their place', async () => {
    const box = sandbox();
    const server = await startHttp(
      [
        '--http',
        '127.0.0.1:0',
        '--max-sessions',
        '2',
        '--session-idle',
        '600',
        '--instance',
        box.instance,
        '--workspace',
        slowWorkspace,
      ],
      box.home,
    );
    const auth = { authorization: `Bearer ${server.token}` };
    try {
      const first = await post(server.url, auth);
      const second = await post(server.url, auth);
      expect([first.status, second.status]).toEqual([200, 200]);
      const third = await post(server.url, auth);
      expect(third.status).toBe(503);
      expect(await third.text()).toContain('2 MCP sessions are live');
      // Past the idle time both are closed: new sessions fit again (asked without naming the idle
      // ones, which would keep them alive), and a request naming one is no longer served.
      const fits = () =>
        until(
          async () => {
            const next = await post(server.url, auth);
            await next.body?.cancel();
            return next.status !== 503 && next.status;
          },
          'a new session to fit once the idle ones are closed',
          { timeoutMs: 30_000, everyMs: 100 },
        );
      expect(await fits()).toBe(200);
      const old = first.headers.get('mcp-session-id') as string;
      const stale = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': old,
          ...auth,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(stale.status).toBe(400);
      expect(await fits()).toBe(200);
    } finally {
      await server.stop();
      box.cleanup();
    }
  });
});

describe('harness serve --http on a non-loopback address', () => {
  it('answers 401 to a missing or wrong bearer token, and serves the right one from HARNESS_HTTP_TOKEN', async () => {
    const box = sandbox();
    const server = await startHttp(
      ['--http', '0.0.0.0:0', '--instance', box.instance, '--workspace', slowWorkspace],
      box.home,
      { HARNESS_HTTP_TOKEN: 'X-secret-0123456789' },
    );
    try {
      expect(server.stderr()).toContain('(bearer token required)');
      expect(server.stderr()).toContain('bearer token from HARNESS_HTTP_TOKEN');
      const url = new URL(server.url);
      url.hostname = '127.0.0.1';
      const none = await post(url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      const wrong = await post(url, { authorization: 'Bearer X-wrong' });
      expect(wrong.status).toBe(401);
      await expect(connectHttp(url, 'nope')).rejects.toThrow();
      const client = await connectHttp(url, 'X-secret-0123456789');
      const listing = structured(await client.callTool({ name: 'list_commands', arguments: {} }));
      expect(listing.status).toBe('ok');
      await client.close();
      // The token never appears in what serve prints.
      expect(server.stderr()).not.toContain('X-secret');
    } finally {
      await server.stop();
      box.cleanup();
    }
  });
});
