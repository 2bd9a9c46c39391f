// Parse once, render many, against a hand-written `replaceAll` chain that produces the same string, in
// the same process (compare() interleaves the two). Target: ratio ≤ 1.5.
import { compare } from '@harness/bench-utils';
import { parse, render } from '@harness/tmpl';

const source =
  'Review {{event.repo}}#{{event.number}} opened by {{event.actor}} in run {{run.id}} ({{run.trigger}}) at {{run.started_at}}; see {{event.file}}.';

const contexts = Array.from({ length: 64 }, (_, i) => ({
  event: {
    repo: `acme/api-${i}`,
    number: 400 + i,
    actor: `user${i}`,
    file: `/var/lib/harness/events/${i}.json`,
  },
  run: {
    id: `r-${i.toString(36)}-${i * 7919}`,
    trigger: i % 2 ? 'webhook' : 'manual',
    started_at: `2026-09-22T05:${String(i % 60).padStart(2, '0')}:00Z`,
  },
}));

const parsed = parse(source);
if (!parsed.ok) throw new Error('benchmark template does not parse');
const template = parsed.template;

function byHand(c: (typeof contexts)[number]): string {
  return source
    .replaceAll('{{event.repo}}', c.event.repo)
    .replaceAll('{{event.number}}', String(c.event.number))
    .replaceAll('{{event.actor}}', c.event.actor)
    .replaceAll('{{run.id}}', c.run.id)
    .replaceAll('{{run.trigger}}', c.run.trigger)
    .replaceAll('{{run.started_at}}', c.run.started_at)
    .replaceAll('{{event.file}}', c.event.file);
}

for (const c of contexts) {
  if (render(template, c) !== byHand(c)) throw new Error('subject and anchor disagree');
}

const BATCH = 2000;
let sink = 0;

const result = await compare({
  name: 'tmpl-render',
  unit: 'ms',
  subject: {
    label: `render() of a parsed template, ${BATCH} renders`,
    fn: () => {
      for (let i = 0; i < BATCH; i++) sink += render(template, contexts[i & 63]!).length;
    },
  },
  anchor: {
    label: `hand-written replaceAll chain, ${BATCH} renders`,
    fn: () => {
      for (let i = 0; i < BATCH; i++) sink += byHand(contexts[i & 63]!).length;
    },
  },
  rounds: 40,
  inner: 5,
  warmup: 5,
  target: 1.5,
  notes: `7 placeholders, 64 rotating contexts; ${BATCH} renders per sample`,
});
// Keeps the rendered lengths observable so neither loop can be optimised away.
if (sink === 0) throw new Error(`no output rendered (${JSON.stringify(result)})`);
