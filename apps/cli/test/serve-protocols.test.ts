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
import { appDir, baseEnv, bin, get, sandbox, startHttp, structured } from './helpers';

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
