// packs-load: loading the example workspace (YAML with positions, zod, templates, grants; no probes)
// against the anchor of parsing the same text with `yaml` alone, interleaved in one process.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare } from '@harness/bench-utils';
import { loadWorkspace } from '@harness/workspace';
import { parse } from 'yaml';

const file = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'fixtures',
  'workspaces',
  'demo',
  'workspace.yaml',
);
const text = readFileSync(file, 'utf8');

await compare({
  name: 'packs-load',
  subject: {
    label: 'loadWorkspace(demo, { probe: false })',
    fn: async () => {
      const r = await loadWorkspace({ text, file }, { probe: false });
      if (!r.ok) throw new Error('load failed');
    },
  },
  anchor: { label: 'YAML.parse(demo)', fn: () => parse(text) },
  rounds: 30,
  inner: 20,
  warmup: 3,
  target: 8,
  notes:
    'The subject also builds the position map, runs the zod schema, parses every argv/env template with @harness/tmpl and resolves every grant.',
});
