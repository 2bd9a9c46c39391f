// commands-catalog-10k: a 10 000-row manifest listed, rendered and compacted by list_commands,
// against JSON.parse of the same listing text, in the same process.
import { compare } from '@harness/bench-utils';
import { createHostCommandTools, createRun, type HostClient } from '@harness/commands';

const rows = Array.from({ length: 10_000 }, (_, i) => ({
  id: `pack${i % 97}.command-${i}`,
  title: `Command number ${i}`,
  help: `Does thing ${i}: reads a file, filters it and returns the matching records as JSON. `.repeat(2),
  inputs: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'A file path' },
      limit: { type: 'integer', default: 50 },
      mode: { enum: ['fast', 'slow', 'exact match'] },
      tags: { type: 'array', items: { type: 'string' } },
      loom: { type: 'string', 'x-source': 'loom' },
    },
    required: ['path', 'loom'],
  },
  outputs: ['records', 'count'],
  effect: i % 3 === 0 ? 'write' : 'read',
  scope: i % 5 === 0 ? 'loom' : 'global',
  readOnlyGranted: i % 3 !== 0,
}));
const text = JSON.stringify({ commands: rows });

// An in-memory host client: the listing arrives as text, as it would from the CLI or the socket.
const client: HostClient = {
  kind: 'socket',
  list: async () => ({ ok: true, listing: JSON.parse(text) }),
  run: async () => ({ kind: 'not_sent', code: 'command_failed' }),
  close: async () => {},
};
const [list] = createHostCommandTools({ config: undefined, alwaysRegister: true, client });
if (!list) throw new Error('no list_commands');
const run = createRun({ mode: 'disabled' });
const entries = ((await list.execute({}, { run })) as { entries: unknown[] }).entries.length;

await compare({
  name: 'commands-catalog-10k',
  subject: {
    label: 'list_commands over a 10 000-row listing (parse, read, render signatures, compact)',
    fn: async () => {
      await list.execute({}, { run });
    },
  },
  anchor: { label: 'JSON.parse of the same listing text', fn: () => JSON.parse(text) },
  rounds: 15,
  inner: 1,
  target: 5,
  notes: `listing ${text.length} bytes; ${entries} entries shown`,
});
