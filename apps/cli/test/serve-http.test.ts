// harness serve over streamable HTTP: the real MCP SDK client (StreamableHTTPClientTransport)
// against the real bin, the URL read from what serve prints on stderr.
import { request } from 'node:http';
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
      await postWith(server.url, { host: `localhost:${port}`, origin: `http://localhost:${port}` }),
    ).toBe(200);
    expect(await postWith(server.url, { host: `127.0.0.1:${port}` })).toBe(200);
  });

  it('prints the URL it listens on, on an ephemeral loopback port', () => {
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(Number(server.url.port)).toBeGreaterThan(0);
    expect(server.url.pathname).toBe('/mcp');
  });

  it('lists tools and answers list_commands, run_command (single and batch) and run_read_command', async () => {
    const client = await connectHttp(server.url);
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
    const a = await connectHttp(server.url);
    const b = await connectHttp(server.url);
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
    const client = await connectHttp(server.url);
    try {
      const controller = new AbortController();
      const started = Date.now();
      const pending = client.callTool(
        { name: 'run_read_command', arguments: { command: 'slow.wait', args: { seconds: 3 } } },
        CallToolResultSchema,
        { signal: controller.signal },
      );
      setTimeout(() => controller.abort('test cancelled'), 300);
      await expect(pending).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await client.close();
    }
  });
});

describe('harness serve --http on a non-loopback address', () => {
  it('refuses to start without a token, before opening anything', async () => {
    const box = sandbox();
    try {
      const r = await runCli(['serve', '--http', '0.0.0.0:0', '--instance', box.instance], {
        home: box.home,
      });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/not a loopback address: set --token or HARNESS_HTTP_TOKEN/);
    } finally {
      box.cleanup();
    }
  });

  it('answers 401 to a missing or wrong bearer token, and serves the right one', async () => {
    const box = sandbox();
    const server = await startHttp(
      [
        '--http',
        '0.0.0.0:0',
        '--token',
        'X-secret',
        '--instance',
        box.instance,
        '--workspace',
        slowWorkspace,
      ],
      box.home,
    );
    try {
      expect(server.stderr()).toContain('(bearer token required)');
      const url = new URL(server.url);
      url.hostname = '127.0.0.1';
      const none = await post(url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      const wrong = await post(url, { authorization: 'Bearer X-wrong' });
      expect(wrong.status).toBe(401);
      await expect(connectHttp(url, 'nope')).rejects.toThrow();
      const client = await connectHttp(url, 'X-secret');
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
