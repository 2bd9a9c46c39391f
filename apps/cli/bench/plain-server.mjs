// The anchor of the MCP benchmarks: a plain MCP SDK server over stdio with one tool that answers at
// once. Its round trip is the floor every MCP server pays.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'plain', version: '0.0.0' }, { capabilities: { tools: {} } });
server.registerTool(
  'echo',
  { description: 'Echo a text.', inputSchema: { text: z.string().optional() } },
  async ({ text }) => ({ content: [{ type: 'text', text: text ?? '' }] }),
);
await server.connect(new StdioServerTransport());
