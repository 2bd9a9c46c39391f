// harness serve answers MCP clients of both protocol versions, over stdio and streamable HTTP: the
// real v2 SDK client (@modelcontextprotocol/client) pinned to 2026-07-28, and the real v1 SDK client
// (@modelcontextprotocol/sdk) at 2025-11-25. Each lists the tools in the catalog's order and calls
// one; a strict call held for approval is put to the person through the client's elicitation
// handler (an `input_required` result for the 2026 client, `elicitation/create` for the 2025 one),
// and on accept the identical call runs once, recorded as approved by elicitation.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getApproval, initInstance, tailAudit } from '@harness/host';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDir, baseEnv, bin, get, sandbox, serveLines, startHttp, structured } from './helpers';

const workspace = join(appDir, 'test', 'fixtures', 'elicit', 'workspace.yaml');
const TOOLS = [
  'list_commands',
  'run_command',
  'run_read_command',
  'loom_compose',
  'loom_inspect',
  'loom_authoring_context',
];

type Version = '2026-07-28' | '2025-11-25';
type Transport = 'stdio' | 'http';

/** What the tests do with a client, whichever SDK it is from. */
interface Connected {
  negotiated: string | undefined;
  listTools: () => Promise<{ tools: { name: string }[] }>;
  callTool: (name: string, args: Record<string, unknown>) => Promise<unknown>;
  /** The messages of the approval questions the client was asked. */
  asked: string[];
  close: () => Promise<void>;
}

const box = sandbox();
let http: Awaited<ReturnType<typeof startHttp>>;

beforeAll(async () => {
  await initInstance(box.instance, workspace, { serves: { agent: 'demo' } });
  const credentials = join(box.instance, 'credentials.json');
  writeFileSync(credentials, JSON.stringify({ vault_token: 'vault-secret-0000' }));
  chmodSync(credentials, 0o600);
  http = await startHttp(['--http', '127.0.0.1:0', '--instance', box.instance], box.home);
}, 60_000);
afterAll(async () => {
  await http?.stop();
  box.cleanup();
});

const serveArgs = () => [bin, 'serve', '--instance', box.instance];

async function connectModern(transport: Transport, name: string): Promise<Connected> {
  const asked: string[] = [];
  const client = new ModernClient(
    { name, version: '0.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { approve: true } };
  });
  await client.connect(
    transport === 'stdio'
      ? new ModernStdio({
          command: process.execPath,
          args: serveArgs(),
          env: baseEnv(box.home),
          stderr: 'pipe',
        })
      : new ModernHttp(http.url, { requestInit: { headers: { authorization: `Bearer ${http.token}` } } }),
  );
  return {
    negotiated: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools(),
    callTool: (tool, args) =>
      client.callTool({ name: tool, arguments: args }, { timeout: 50_000 } as never) as Promise<unknown>,
    asked,
    close: () => client.close(),
  };
}

async function connectLegacy(transport: Transport, name: string): Promise<Connected> {
  const asked: string[] = [];
  const client = new Client({ name, version: '0.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { approve: true } };
  });
  const wire =
    transport === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: serveArgs(),
          env: baseEnv(box.home),
          stderr: 'pipe',
        })
      : new StreamableHTTPClientTransport(http.url, {
          requestInit: { headers: { authorization: `Bearer ${http.token}` } },
        });
  // The v1 client keeps no negotiated version to ask for: the initialize answer names it.
  let negotiated: string | undefined;
  wire.onmessage = (message) => {
    const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === 'string') negotiated ??= version;
  };
  await client.connect(wire);
  return {
    negotiated,
    listTools: () => client.listTools(),
    callTool: (tool, args) =>
      client.callTool({ name: tool, arguments: args }, undefined, { timeout: 50_000 }) as Promise<unknown>,
    asked,
    close: () => client.close(),
  };
}

const cases: [Version, Transport][] = [
  ['2026-07-28', 'stdio'],
  ['2026-07-28', 'http'],
  ['2025-11-25', 'stdio'],
  ['2025-11-25', 'http'],
];

describe.each(cases)('a %s client over %s', (protocol, transport) => {
  const name = `client-${protocol}-${transport}`;
  const connect = () => (protocol === '2026-07-28' ? connectModern : connectLegacy)(transport, name);

  it('negotiates its version, lists the tools in the catalog order and calls one', async () => {
    const c = await connect();
    try {
      expect(c.negotiated).toBe(protocol);
      const listed = await c.listTools();
      expect(listed.tools.map((t) => t.name)).toEqual(TOOLS);
      // The same list again, in the same order.
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
      const result = await c.callTool('list_commands', {});
      expect(get(structured(result), 'status')).toBe('ok');
      expect(JSON.stringify(structured(result))).toContain('vault.sign');
    } finally {
      await c.close();
    }
  }, 90_000);

  it('puts a held strict call to the person through elicitation; on accept the identical call runs once', async () => {
    const c = await connect();
    const line = `approved through ${protocol} over ${transport}`;
    try {
      const result = await c.callTool('run_command', { command: 'vault.sign', args: { line } });
      const value = structured(result);
      expect(value.status, JSON.stringify(result)).toBe('executed');
      expect(get(value, 'entry', 'value', 'output')).toBe(`signed ${line}`);
      expect(c.asked).toHaveLength(1);
      const message = c.asked[0] ?? '';
      expect(message).toContain('command: vault.sign (strict tier)');
      const id = /approval (apr-\S+),/.exec(message)?.[1] ?? '';
      expect(await getApproval(box.instance, id)).toMatchObject({
        status: 'consumed',
        decided_by: `elicitation:${name}`,
        decided_via: 'elicitation',
      });
      const rows = (await tailAudit(box.instance, 400)).filter(
        (e) => e.command === 'vault.sign' && e.phase !== 'start' && JSON.stringify(e.payload).includes(id),
      );
      // The held call, the person's decision, then the identical call it allowed.
      expect(rows.map((r) => [r.phase, r.outcome])).toEqual([
        ['run', 'refused'],
        ['approval', 'approved'],
        ['run', 'ok'],
      ]);
    } finally {
      await c.close();
    }
  }, 90_000);
});

describe('the 2026-07-28 wire over HTTP, as a client without an SDK sends it', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-client', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
  let id = 0;
  async function post(method: string, params: Record<string, unknown>) {
    const res = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${http.token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta } }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const sign = (line: string, more: Record<string, unknown> = {}) =>
    post('tools/call', {
      name: 'run_command',
      arguments: { command: 'vault.sign', args: { line } },
      ...more,
    });

  it('answers server/discover with 2026-07-28 and no session', async () => {
    const { status, body } = await post('server/discover', {});
    expect(status).toBe(200);
    expect(get(body, 'result', 'supportedVersions')).toEqual(['2026-07-28']);
    expect(get(body, 'result', 'capabilities', 'tools')).toEqual({});
  });

  it('holds a strict call with an input_required result; a forged or altered answer is refused, and a decline denies it', async () => {
    const first = await sign('raw decline');
    expect(get(first.body, 'result', 'resultType')).toBe('input_required');
    const requests = get(first.body, 'result', 'inputRequests') as Record<
      string,
      { method: string; params: unknown }
    >;
    const [key, request] = Object.entries(requests)[0] ?? [];
    expect(key).toMatch(/^approve-apr-/);
    expect(request?.method).toBe('elicitation/create');
    expect(get(request, 'params', 'message')).toContain('line: "raw decline"');
    const state = get(first.body, 'result', 'requestState') as string;

    const forged = await sign('raw decline', { requestState: 'not-one-we-gave', inputResponses: {} });
    expect(get(forged.body, 'error', 'code')).toBe(-32602);
    const altered = await sign('another line', {
      requestState: state,
      inputResponses: { [key as string]: { action: 'accept', content: { approve: true } } },
    });
    expect(get(altered.body, 'error', 'message')).toContain('identical call');
    // Single use: the altered try spent the state; the decline needs the call made afresh.
    const again = await sign('raw decline');
    const [key2] = Object.keys(get(again.body, 'result', 'inputRequests') as object);
    const declined = await sign('raw decline', {
      requestState: get(again.body, 'result', 'requestState'),
      inputResponses: { [key2 as string]: { action: 'decline' } },
    });
    expect(get(declined.body, 'result', 'isError')).toBe(true);
    expect(get(structured(declined.body.result), 'outcome', 'reason')).toBe('approval_denied');
    const approvalId = (key2 as string).replace(/^approve-/, '');
    expect(await getApproval(box.instance, approvalId)).toMatchObject({
      status: 'denied',
      decided_by: 'elicitation:raw-client',
    });
  });

  it('on cancel answers the held call and leaves its approval pending', async () => {
    const first = await sign('raw cancel');
    const [key] = Object.keys(get(first.body, 'result', 'inputRequests') as object);
    const cancelled = await sign('raw cancel', {
      requestState: get(first.body, 'result', 'requestState'),
      inputResponses: { [key as string]: { action: 'cancel' } },
    });
    expect(get(structured(cancelled.body.result), 'outcome', 'code')).toBe('approval_required');
    expect(await getApproval(box.instance, (key as string).replace(/^approve-/, ''))).toMatchObject({
      status: 'pending',
    });
  });
});

describe('a 2025-06-18 client over stdio', () => {
  it('is answered in 2025-06-18 and lists the tools', async () => {
    const serve = serveLines(['--instance', box.instance], box.home);
    try {
      await serve.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'june', version: '0' },
        },
      });
      expect(get(await serve.next(), 'result', 'protocolVersion')).toBe('2025-06-18');
      await serve.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await serve.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const tools = get(await serve.next(), 'result', 'tools') as { name: string }[];
      expect(tools.map((t) => t.name)).toEqual(TOOLS);
    } finally {
      await serve.stop();
    }
  });
});

describe('a v2 client that negotiates (versionNegotiation auto)', () => {
  it.each(['stdio', 'http'] as const)(
    'settles on 2026-07-28 over %s',
    async (transport) => {
      const client = new ModernClient(
        { name: 'auto', version: '0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(
        transport === 'stdio'
          ? // Its probe runs on a sibling serve it starts and ends; the connection then starts its own.
            new ModernStdio({
              command: process.execPath,
              args: serveArgs(),
              env: baseEnv(box.home),
              stderr: 'pipe',
            })
          : new ModernHttp(http.url, { requestInit: { headers: { authorization: `Bearer ${http.token}` } } }),
      );
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
      } finally {
        await client.close();
      }
    },
    60_000,
  );
});
