// server-catalog: o200k tokens of what a model reads to learn every tool of four real MCP servers:
// the list_commands result of `harness serve` governing server-everything, server-filesystem,
// server-memory and @playwright/mcp (listing only), against the same servers' own tools/list entries
// as a client would hand them to the model ({name, title?, description, inputSchema, outputSchema?,
// annotations?}). Target: ≤ 0.25. Beside it, the floor: each tool's name and the lead paragraph of
// its description and nothing else, the least a listing can hold that shows the server's own words.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { summarize, writeResult } from '@harness/bench-utils';
import { EVERYTHING, FILESYSTEM, MEMORY, PLAYWRIGHT_MCP, serversCache } from '@harness/test-utils';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { benchDir, plainStdioArgs, requireBin, serveStdio } from './fixture';
import { acceptServers, type BenchServer, requireServers, serversWorkspace } from './servers-fixture';

const TARGET = 0.25;
requireBin('server-catalog');
const pins = [EVERYTHING, FILESYSTEM, MEMORY, PLAYWRIGHT_MCP];
const entries = await requireServers('server-catalog', pins);
// Outside /tmp (a confined server's /tmp is its own) and outside the home (hidden from it).
const shared = mkdtempSync(join(serversCache(), 'bench-fs-'));
const servers: BenchServer[] = [
  { id: 'everything', args: [entries[0] as string] },
  { id: 'fs', args: [entries[1] as string, shared] },
  { id: 'memory', args: [entries[2] as string] },
  // Listing only: no tool is called, so no browser starts; unconfined, as a browser server must be.
  { id: 'playwright', args: [entries[3] as string, '--headless'], extra: '    sandbox: false\n' },
];
const tokens = (text: string) => encode(text).length;
const dir = benchDir(serversWorkspace(servers));
acceptServers(dir, servers);
const serve = await serveStdio(dir);

/** Each server's tools/list, straight from the server (the same argv, unconfined). */
async function ownListings(): Promise<{ server: string; tools: Record<string, unknown>[] }[]> {
  const out = [];
  for (const s of servers) {
    const client = await plainStdioArgs(s.args[0] as string, s.args.slice(1));
    try {
      out.push({ server: s.id, tools: (await client.listTools()).tools as Record<string, unknown>[] });
    } finally {
      await client.close();
    }
  }
  return out;
}

/** The lead paragraph of a description, as list_commands cuts it. */
const lead = (d: unknown): string => {
  const text = typeof d === 'string' ? d.trim() : '';
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end).trimEnd();
};

try {
  const res = await serve.client.callTool({ name: 'list_commands', arguments: {} });
  const whole = res.structuredContent as { entries: { name: string }[]; compacted?: number };
  // The text the model reads is this JSON; the host's own loom commands, listed to every agent, are
  // left out of it so that both sides hold the same tools.
  const listing = { ...whole, entries: whole.entries.filter((e) => !e.name.startsWith('loom.')) };
  const text = JSON.stringify(listing);
  const own = await ownListings();
  const tools = own.flatMap((o) => o.tools.map((t) => ({ server: o.server, tool: t })));
  if (listing.entries.length !== tools.length) {
    const shown = new Set(listing.entries.map((e) => e.name));
    const listed = new Set(tools.map((t) => `${t.server}.${t.tool.name}`));
    const extra = listing.entries.filter((e) => !listed.has(e.name)).map((e) => e.name);
    const missing = tools
      .filter((t) => !shown.has(`${t.server}.${t.tool.name}`))
      .map((t) => `${t.server}.${t.tool.name}`);
    throw new Error(
      `list_commands listed ${listing.entries.length} of ${tools.length} tools; not: ${missing.join(', ')}; beyond them: ${extra.join(', ')}`,
    );
  }
  const anchor = tokens(JSON.stringify({ tools: tools.map((t) => t.tool) }));
  const subject = tokens(text);
  const floorTokens = tokens(
    JSON.stringify(
      tools.map((t) => ({ name: `${t.server}.${t.tool.name}`, description: lead(t.tool.description) })),
    ),
  );
  const ratio = subject / anchor;
  writeResult('server-catalog', {
    unit: 'o200k tokens',
    servers: pins.map((p) => `${p.name}@${p.version}`),
    tools: tools.length,
    subject: {
      label:
        'the list_commands result of harness serve over the four servers, as the model reads it (notice included)',
      total: subject,
      perEntry: summarize(listing.entries.map((e) => tokens(JSON.stringify(e)))),
      compacted: listing.compacted ?? 0,
    },
    anchor: {
      label: "the servers' own tools/list entries, as JSON",
      total: anchor,
      perTool: summarize(tools.map((t) => tokens(JSON.stringify(t.tool)))),
    },
    ratio,
    floor: {
      label: "each tool's id and the lead paragraph of its description, as JSON, nothing else",
      total: floorTokens,
      ratio: floorTokens / anchor,
    },
    ratioToFloor: subject / floorTokens,
    target: { ratioAtMost: TARGET },
    pass: ratio <= TARGET,
    notes: 'Counted, not timed: the figure does not depend on the machine or its load.',
  });
} finally {
  await serve.client.close();
  dir.cleanup();
  rmSync(shared, { recursive: true, force: true });
}
