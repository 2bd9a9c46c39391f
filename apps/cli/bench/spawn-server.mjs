// The floor of the serve-overhead benchmarks: a plain MCP SDK server over stdio whose one tool runs
// a program the way a pack command is run (detached, both pipes read to their end) and answers with
// its exit code. Every MCP server that runs a command pays this much; what serve costs above it is
// the harness's own work (policy, grant, record, audit, measurement, the spawner hop).
import { spawn } from 'node:child_process';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'spawn', version: '0.0.0' }, { capabilities: { tools: {} } });
server.registerTool(
  'run',
  { description: 'Run a program.', inputSchema: { argv: z.array(z.string()).min(1) } },
  ({ argv }) =>
    new Promise((resolve) => {
      const child = spawn(argv[0], argv.slice(1), {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '' },
      });
      child.stdout.on('data', () => {});
      child.stderr.on('data', () => {});
      const answer = (text, isError) => resolve({ content: [{ type: 'text', text }], isError });
      child.once('error', (e) => answer(e.message, true));
      child.once('close', (code) => answer(`exit ${code}`, code !== 0));
    }),
);
await server.connect(new StdioServerTransport());
