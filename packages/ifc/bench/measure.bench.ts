// Measuring a full batch (16 labelled answers, ceiling check, one observation) beside the cost the
// harness pays for the same batch anyway: serializing the answers to bound them for the model.
import { compare } from '@harness/bench-utils';
import { type Label, measure, ObservationLog } from '@harness/ifc';

const queryLabel: Label = { confidentiality: [{ anyOf: ['alice', 'bob'] }], integrity: [] };
const ceiling = ['alice', { anyOf: ['alice', 'bob'] }, { space: 's1', role: 'reader' }];
const answers = Array.from({ length: 16 }, (_, i) => ({
  ok: true,
  id: `notes.search-${i}`,
  code: 'ok',
  mayHaveLanded: false,
  completed: [],
  body: { hits: Array.from({ length: 20 }, (_, j) => ({ id: `n-${j}`, title: `Note ${j}`, score: j / 20 })) },
  ...(i % 2
    ? { ifc: { confidentiality: ['alice', { space: 's1', role: 'reader' }], integrity: ['host'] } }
    : {}),
}));

await compare({
  name: 'ifc-measure-batch',
  subject: {
    label: 'measure 16 answers + observeBatch',
    fn: () => new ObservationLog().observeBatch(answers.map((a) => measure(a, { queryLabel, ceiling }))),
  },
  anchor: { label: 'JSON.stringify of the 16 answers', fn: () => answers.map((a) => JSON.stringify(a)) },
  rounds: 40,
  inner: 200,
  target: 3,
  notes:
    'measurement validates and normalizes each label (never the body); the target, set after the first ' +
    'runs, keeps a batch within a small constant factor of serializing its answers once',
});
