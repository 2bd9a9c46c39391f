// signature-tokens: o200k tokens per command, the signature line against the command as MCP
// `tools/list` sends it ({name, description?, inputSchema}), and the whole list_commands entry
// ({name, signature, title, description}) against the whole MCP tool entry. Target: ratio ≤ 0.25.
import { summarize, writeResult } from '@harness/bench-utils';
import { renderSignature } from '@harness/signature';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { corpus, readFixture } from '../test/corpus';

const tokens = (text: string) => encode(text).length;
const commands = corpus();

/** The tool object as captured from the server (title, annotations, outputSchema included). */
function wholeMcpEntry(fixture: string, name: string, fallback: Record<string, unknown>): unknown {
  const tools = readFixture(fixture).tools;
  if (!Array.isArray(tools)) return { ...fallback, title: undefined };
  return tools.find((t) => (t as { name?: unknown }).name === name) ?? fallback;
}

const rows = commands.map((c) => {
  const signature = renderSignature(c.input);
  const name = String(c.input.name);
  const sig = tokens(signature);
  const mcp = tokens(JSON.stringify(c.mcpTool));
  const entry = tokens(JSON.stringify({ name, signature, title: c.title, description: c.description }));
  const mcpWhole = c.fixture.startsWith('mcp/')
    ? tokens(JSON.stringify(wholeMcpEntry(c.fixture, name, c.mcpTool)))
    : tokens(
        JSON.stringify({
          name,
          title: c.title,
          description: c.description,
          inputSchema: c.input.inputSchema,
        }),
      );
  return {
    fixture: c.fixture,
    name,
    signature: sig,
    mcpTool: mcp,
    ratio: sig / mcp,
    entry,
    mcpWhole,
    entryRatio: entry / mcpWhole,
  };
});

const sum = (k: 'signature' | 'mcpTool' | 'entry' | 'mcpWhole') => rows.reduce((n, r) => n + r[k], 0);
const totals = {
  signature: sum('signature'),
  mcpTool: sum('mcpTool'),
  entry: sum('entry'),
  mcpWhole: sum('mcpWhole'),
};
const ratio = totals.signature / totals.mcpTool;

writeResult('signature-tokens', {
  unit: 'o200k tokens per command',
  commands: rows.length,
  subject: { label: 'signature line', ...summarize(rows.map((r) => r.signature)), total: totals.signature },
  anchor: {
    label: 'MCP tools/list {name, description?, inputSchema}',
    ...summarize(rows.map((r) => r.mcpTool)),
    total: totals.mcpTool,
  },
  ratio,
  medianPerCommandRatio: summarize(rows.map((r) => r.ratio)).median,
  target: { ratioAtMost: 0.25 },
  pass: ratio <= 0.25,
  entry: {
    subject: {
      label: 'list_commands entry {name, signature, title, description}',
      ...summarize(rows.map((r) => r.entry)),
      total: totals.entry,
    },
    anchor: {
      label: 'whole MCP tool entry as tools/list sends it (title, annotations, outputSchema included)',
      ...summarize(rows.map((r) => r.mcpWhole)),
      total: totals.mcpWhole,
    },
    ratio: totals.entry / totals.mcpWhole,
    medianPerCommandRatio: summarize(rows.map((r) => r.entryRatio)).median,
  },
  byFixture: Object.fromEntries(
    [...new Set(rows.map((r) => r.fixture))].map((f) => {
      const mine = rows.filter((r) => r.fixture === f);
      const s = mine.reduce((n, r) => n + r.signature, 0);
      const m = mine.reduce((n, r) => n + r.mcpTool, 0);
      return [f, { commands: mine.length, signature: s, mcpTool: m, ratio: s / m }];
    }),
  ),
  notes: 'Compact JSON, as servers send it. Ratio = total signature tokens / total MCP tool tokens.',
});
