// packs-run: runPackCommand of a one-slot command against @harness/exec's run of the same argv, so
// the ratio is what the pack layer adds (argument checks, rendering, env build, redaction, parsing).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare } from '@harness/bench-utils';
import { run } from '@harness/exec';
import { credentialsFrom, loadPacks, runPackCommand } from '@harness/packs';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..');
const loaded = await loadPacks(
  {
    file: join(dir, 'bench-workspace.yaml'),
    text: `command_packs:
  - id: b
    credentials_ref: token
    env: { TOKEN: '{{credential.token}}' }
    commands:
      - { id: echo, argv: [printf, '%s', '{{value}}'], effects: read, output: { parse: text } }
`,
  },
  { probe: false },
);
if (!loaded.ok) throw new Error('load failed');
const ws = loaded.packs;
const credentials = credentialsFrom({ token: 'bench-secret-value' });
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', TOKEN: 'bench-secret-value' };

await compare({
  name: 'packs-run',
  subject: {
    label: "runPackCommand('b.echo', { value })",
    fn: async () => {
      const r = await runPackCommand(ws, 'b.echo', { value: 'hello world' }, { credentials });
      if (!r.ok || !r.outcome.ok) throw new Error('run failed');
    },
  },
  anchor: {
    label: "exec run({ argv: ['printf', '%s', 'hello world'] })",
    fn: async () => {
      const r = await run({ argv: ['printf', '%s', 'hello world'], env, cwd: dir });
      if (!r.ok) throw new Error('run failed');
    },
  },
  rounds: 20,
  inner: 5,
  warmup: 2,
  target: 1.2,
  notes: 'Both spawn printf through @harness/exec; the subject adds the pack layer around it.',
});
