// signature-render: rendering every corpus command's signature, against JSON.stringify of the same
// argument schemas, timed interleaved in one process. Target: ratio ≤ 2.
import { compare } from '@harness/bench-utils';
import { renderSignature } from '@harness/signature';
import { corpus } from '../test/corpus';

const commands = corpus();
const inputs = commands.map((c) => c.input);
const schemas = commands.map((c) => c.input.inputSchema);
let sink = 0;

await compare({
  name: 'signature-render',
  unit: 'ms',
  subject: {
    label: `renderSignature over the corpus (${inputs.length} commands)`,
    fn: () => {
      for (const input of inputs) sink += renderSignature(input).length;
    },
  },
  anchor: {
    label: `JSON.stringify of the same ${schemas.length} argument schemas`,
    fn: () => {
      for (const schema of schemas) sink += JSON.stringify(schema).length;
    },
  },
  rounds: 41,
  inner: 200,
  warmup: 5,
  target: 2,
  notes: 'One call renders the whole corpus (test/fixtures: MCP servers tools/list and manifest rows).',
});
if (sink === 0) process.stdout.write('unreachable\n');
