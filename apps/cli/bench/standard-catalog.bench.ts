// standard-catalog: o200k tokens of what a model reads to learn every command of every standard pack:
// the list_commands result (one typed signature line per command) against the same commands written
// as MCP tools, as tools/list would send them ({name, description, inputSchema}). Target: ≤ 0.3.
import { summarize, writeResult } from '@harness/bench-utils';
import { createHostCommandTools, createRun, type HostClient } from '@harness/commands';
import { describeStandardPacks } from '@harness/packs';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const tokens = (text: string) => encode(text).length;
const packs = await describeStandardPacks({ probe: false });
const commands = packs.flatMap((pack) => pack.commands);

// The host listing rows a broker serving every standard command would send, all granted.
const rows = commands.map((c) => ({
  id: c.id,
  title: c.title,
  help: c.description,
  inputs: c.inputs,
  effect: c.effect,
  scope: 'global',
  readOnlyGranted: c.effect === 'read',
}));
const client: HostClient = {
  kind: 'socket',
  list: async () => ({ ok: true, listing: { commands: rows } }),
  run: async () => ({ kind: 'not_sent', code: 'command_failed' }),
  close: async () => {},
};
const [list] = createHostCommandTools({ config: undefined, alwaysRegister: true, client });
if (!list) throw new Error('no list_commands tool');
const listing = (await list.execute({}, { run: createRun({ mode: 'disabled' }) })) as {
  entries: { name: string }[];
};
if (listing.entries.length !== commands.length) {
  throw new Error(`list_commands listed ${listing.entries.length} of ${commands.length} commands`);
}

// The same listing with every entry compact (name, signature, title): what list_commands sends for
// entries past its size bound, a description then coming with list_commands({ detail: [names] }).
const compact = {
  ...listing,
  entries: listing.entries.map(
    ({ description: _d, ...entry }: { description?: string; name: string }) => entry,
  ),
};

const mcpTools = commands.map((c) => ({ name: c.id, description: c.description, inputSchema: c.inputs }));
const subject = tokens(JSON.stringify(listing));
const anchor = tokens(JSON.stringify({ tools: mcpTools }));
const perCommand = mcpTools.map((tool, i) => ({
  entry: tokens(JSON.stringify(listing.entries[i])),
  tool: tokens(JSON.stringify(tool)),
}));
const ratio = subject / anchor;
const compactTokens = tokens(JSON.stringify(compact));

writeResult('standard-catalog', {
  unit: 'o200k tokens',
  packs: packs.map((p) => p.id),
  commands: commands.length,
  subject: {
    label: 'the list_commands result over every standard command (notice included)',
    total: subject,
    perEntry: summarize(perCommand.map((r) => r.entry)),
  },
  anchor: {
    label: 'the same commands as MCP tools/list {name, description, inputSchema}',
    total: anchor,
    perTool: summarize(perCommand.map((r) => r.tool)),
  },
  ratio,
  compact: {
    label: 'the same list_commands result with every entry compact (descriptions on request, through detail)',
    total: compactTokens,
    ratio: compactTokens / anchor,
  },
  target: { ratioAtMost: 0.3 },
  pass: ratio <= 0.3,
  notes: 'Counted, not timed: the figure does not depend on the machine or its load.',
});
process.stdout.write(
  `standard-catalog: ${subject} tokens for ${commands.length} commands vs ${anchor} as MCP tools: ratio ${ratio.toFixed(3)} (target <= 0.3); compact entries ${compactTokens} tokens, ratio ${(compactTokens / anchor).toFixed(3)}\n`,
);
