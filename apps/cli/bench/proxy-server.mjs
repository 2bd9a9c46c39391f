// The floor of server-call: a plain MCP SDK server over stdio that holds one persistent SDK client to
// an upstream MCP server (the argv after this file) and forwards each `tools/call` to it unchanged.
// Any gateway standing between a client and a server pays this much: a second JSON-RPC hop and a
// second process. What `harness serve` costs above it is the harness's own work.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error('usage: proxy-server.mjs <upstream command> [args…]');
const upstream = new Client({ name: 'proxy', version: '0.0.0' });
await upstream.connect(
  new StdioClientTransport({ command, args, env: { PATH: process.env.PATH ?? '' }, stderr: 'ignore' }),
);

const server = new Server({ name: 'proxy', version: '0.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => upstream.listTools());
server.setRequestHandler(CallToolRequestSchema, (request) =>
  upstream.callTool({ name: request.params.name, arguments: request.params.arguments }),
);
await server.connect(new StdioServerTransport());
