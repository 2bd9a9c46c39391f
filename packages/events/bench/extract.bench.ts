// Typed extraction of a real 26 KB GitHub pull-request delivery, against JSON.parse of the same body:
// the parse every webhook receiver pays anyway. Extraction should cost a small fraction of it.
// Target: ratio ≤ 0.5.
import { readFileSync } from 'node:fs';
import { compare } from '@harness/bench-utils';
import { extract } from '@harness/events';

const text = readFileSync(
  new URL('../../../fixtures/webhooks/github/pr_opened.json', import.meta.url),
  'utf8',
);
const body: unknown = JSON.parse(text);
const input = { scheme: 'github', event: 'pull_request', body, trustedActors: ['bradrydzewski'] };

if (extract(input).typed.number !== 1) throw new Error('benchmark fixture did not extract');

const result = await compare({
  name: 'events-extract',
  subject: { label: 'extract(github pr_opened)', fn: () => extract(input) },
  anchor: { label: 'JSON.parse(same body, 26 KB)', fn: () => JSON.parse(text) },
  rounds: 30,
  inner: 200,
  target: 0.5,
  targetKind: 'max',
  notes: 'subject extracts typed + untrusted from an already-parsed body; anchor parses the body text',
});
console.log(JSON.stringify(result, null, 2));
