import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect, it } from 'vitest';
import {
  flowsTo,
  IfcError,
  join,
  type Label,
  type Measurement,
  measure,
  ObservationLog,
  PUBLIC,
} from '../src/index';
import { label } from './arbitraries';

const alice: Label = { confidentiality: ['alice'], integrity: [] };
const bob: Label = { confidentiality: ['bob'], integrity: [] };
const admitted = (l: Label): Measurement<unknown> =>
  measure({ ifc: l }, { queryLabel: PUBLIC, ceiling: undefined });
const withheld = (l: Label): Measurement<unknown> => measure({ ifc: l }, { queryLabel: PUBLIC, ceiling: [] });

describe('ObservationLog', () => {
  it('records an admitted answer as a model-context observation over the output channel [HC-173]', () => {
    const log = new ObservationLog();
    const o = log.observeBatch([admitted(alice)]);
    expect(o).toEqual({ seq: 1, channel: 'output', label: alice, context: alice });
    expect(log.context).toEqual(alice);
    expect(log.observations).toEqual([o]);
  });

  it("a batch records exactly one observation, the join of its admitted answers' labels [HC-175]", () => {
    const log = new ObservationLog();
    log.observeBatch([admitted(alice), withheld(bob), admitted(bob)]);
    expect(log.observations).toHaveLength(1);
    expect(log.observations[0]?.label).toEqual(join(alice, bob));
  });

  it('records nothing for a batch in which nothing was admitted', () => {
    const log = new ObservationLog();
    expect(log.observeBatch([withheld(alice), withheld(bob)])).toBeUndefined();
    expect(log.observeBatch([])).toBeUndefined();
    expect(log.observations).toEqual([]);
    expect(log.context).toEqual(PUBLIC);
  });

  it('refuses to observe a value that is not a label, rather than recording it as public', () => {
    const log = new ObservationLog();
    expect(() => log.observe(undefined as unknown as Label)).toThrowError(
      expect.objectContaining({ code: 'invalid_label' }),
    );
    expect(() => log.observe({ confidentiality: 'alice' } as unknown as Label)).toThrowError(IfcError);
    expect(log.observations).toEqual([]);
  });

  it('checks the context against a ceiling', () => {
    const log = new ObservationLog({ initial: alice });
    expect(log.fits(['alice'])).toBe(true);
    log.observe(bob);
    expect(log.fits(['alice'])).toBe(false);
  });

  test.prop([label, fc.array(label, { maxLength: 8 })], { numRuns: fcRuns(300) })(
    'the context only rises: every earlier context flows to every later one',
    (initial, seen) => {
      const log = new ObservationLog({ initial });
      const contexts = [log.context];
      for (const l of seen) contexts.push(log.observe(l).context);
      for (let i = 1; i < contexts.length; i++) {
        expect(flowsTo(contexts[i - 1] as Label, contexts[i] as Label)).toBe(true);
        expect(flowsTo(seen[i - 1] as Label, contexts[i] as Label)).toBe(true);
      }
    },
  );

  test.prop([fc.array(fc.tuple(label, fc.boolean()), { maxLength: 6 })], { numRuns: fcRuns(300) })(
    'a batch adds one observation when anything was admitted and none otherwise',
    (calls) => {
      const log = new ObservationLog();
      const o = log.observeBatch(
        calls.map(([l, ok]) => (ok ? admitted(l) : withheld({ ...l, confidentiality: ['x'] }))),
      );
      const anyAdmitted = calls.some(([, ok]) => ok);
      expect(log.observations).toHaveLength(anyAdmitted ? 1 : 0);
      expect(o === undefined).toBe(!anyAdmitted);
    },
  );
});

describe('ObservationLog bound', () => {
  it('keeps only its latest observations while the context still joins every one', () => {
    const log = new ObservationLog({ keep: 2 });
    log.observe(alice);
    log.observe(bob);
    const third = log.observe(PUBLIC);
    expect(log.observations.map((o) => o.seq)).toEqual([2, 3]);
    expect(third.seq).toBe(3);
    expect(log.context).toEqual(join(alice, bob));
  });

  it('refuses a keep that is not a whole number', () => {
    expect(() => new ObservationLog({ keep: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_bound' }),
    );
  });
});
