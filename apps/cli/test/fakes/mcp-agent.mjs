#!/usr/bin/env node
// A FAKE agent CLI that speaks MCP (it stands in for claude, codex or a command harness's program in
// the governed-tools tests; no model is involved). It finds the MCP server its run was given the way
// the real CLI would — Claude Code's `--mcp-config <file>`, Codex's `-c mcp_servers.harness.*`, or
// HARNESS_MCP_CONFIG — starts it with the real MCP SDK client, lists the tools, makes one call, and
// records what it saw in $FAKE_RECORD_DIR/$HARNESS_RUN_ID.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const argv = process.argv.slice(2);
function server() {
  const at = argv.indexOf('--mcp-config');
  const file = at >= 0 ? argv[at + 1] : process.env.HARNESS_MCP_CONFIG;
  if (file !== undefined) return JSON.parse(readFileSync(file, 'utf8')).mcpServers.harness;
  const config = {};
  argv.forEach((a, i) => {
    const m = argv[i - 1] === '-c' && /^mcp_servers\.harness\.(command|args)=(.*)$/s.exec(a);
    if (m) config[m[1]] = JSON.parse(m[2]);
  });
  return config;
}

const spec = server();
const client = new Client({ name: 'fake-agent', version: '0.0.0' });
const transport = new StdioClientTransport({ command: spec.command, args: spec.args, stderr: 'pipe' });
let serveLog = '';
transport.stderr?.on('data', (c) => (serveLog += c));
const record = { argv, server: spec };
try {
  await client.connect(transport);
  record.tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const listing = await client.callTool({ name: 'list_commands', arguments: {} });
  record.listing = listing.content?.[0]?.text ?? '';
  const ran = await client.callTool({
    name: 'run_read_command',
    arguments: { command: 'echo.argv', args: { value: process.env.FAKE_VALUE ?? 'from-the-agent' } },
  });
  record.call = { isError: ran.isError, text: ran.content?.[0]?.text ?? '' };
} catch (error) {
  record.error = String(error);
  record.serveLog = serveLog;
} finally {
  await client.close().catch(() => undefined);
}
writeFileSync(`${process.env.FAKE_RECORD_DIR}/${process.env.HARNESS_RUN_ID}.json`, JSON.stringify(record));
process.stdout.write(record.call?.text ?? 'no call');
process.exit(record.error === undefined ? 0 : 1);
