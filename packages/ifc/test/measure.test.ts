import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect, it } from 'vitest';
import {
  IfcError,
  joinAll,
  LABEL_READ_FAILED,
  type Label,
  labelForUnlabeled,
  type Measurement,
  measure,
  PUBLIC,
  WITHHELD_CEILING_EXCEEDED,
  WITHHELD_LABEL_READ_FAILED,
} from '../src/index';
import { ceiling, label } from './arbitraries';

// A CommandAnswer as docs/protocol.md defines it.
const answer = (body: unknown, ifc?: unknown) => ({
  ok: true,
  id: 'json-tools.query',
  code: 'ok',
  mayHaveLanded: true,
  completed: [],
  body,
  ...(ifc === undefined ? {} : { ifc }),
});
const alice: Label = { confidentiality: ['alice'], integrity: ['host'] };
const query: Label = { confidentiality: ['bob'], integrity: ['typed-by-person'] };

describe('measure: the four outcomes', () => {
  it('admits an answer by its own ifc label (labelSource row) [HC-163]', () => {
    const a = answer({ n: 1 }, alice);
    expect(measure(a, { queryLabel: query, ceiling: ['alice'] })).toEqual({
      status: 'admitted',
      labelSource: 'row',
      label: alice,
      answer: a,
    });
  });

  it("admits an unlabeled answer at the query's confidentiality and no integrity (labelSource query) [HC-164]", () => {
    const a = answer({ n: 1 });
    const m = measure(a, { queryLabel: query, ceiling: ['bob'] });
    expect(m).toEqual({
      status: 'admitted',
      labelSource: 'query',
      label: { confidentiality: ['bob'], integrity: [] },
      answer: a,
    });
    expect(labelForUnlabeled(query)).toEqual({ confidentiality: ['bob'], integrity: [] });
  });

  it('withholds an answer whose label exceeds the run ceiling (cfc_ceiling_exceeded) [HC-165]', () => {
    expect(measure(answer({}, alice), { queryLabel: PUBLIC, ceiling: ['bob'] })).toBe(
      WITHHELD_CEILING_EXCEEDED,
    );
    expect(measure(answer({}), { queryLabel: query, ceiling: [] })).toBe(WITHHELD_CEILING_EXCEEDED);
    expect(measure(answer({}, alice), { queryLabel: PUBLIC, ceiling: undefined }).status).toBe('admitted');
  });

  it.each([
    ['null', null],
    ['a string', 'alice'],
    ['an unknown key', { confidentiality: [], expires: 1 }],
    ['an empty disjunction', { confidentiality: [{ anyOf: [] }] }],
  ])('withholds an answer whose ifc is %s (cfc_label_read_failed), even with no ceiling', (_n, ifc) => {
    const a = { ...answer({}), ifc };
    expect(measure(a, { queryLabel: PUBLIC, ceiling: undefined })).toBe(WITHHELD_LABEL_READ_FAILED);
    expect(measure(a, { queryLabel: PUBLIC, ceiling: ['alice'] })).toBe(WITHHELD_LABEL_READ_FAILED);
  });

  it('reads an ifc key holding undefined as absent, and an inherited ifc as absent', () => {
    expect(measure({ ...answer({}), ifc: undefined }, { queryLabel: PUBLIC, ceiling: [] }).status).toBe(
      'admitted',
    );
    const inherited = Object.create({ ifc: null }) as object;
    expect(measure(inherited, { queryLabel: PUBLIC, ceiling: [] }).status).toBe('admitted');
  });

  it('withholds a label carrying the read-failed marker, from the row or the query, whatever the ceiling', () => {
    expect(measure(answer({}, LABEL_READ_FAILED), { queryLabel: PUBLIC, ceiling: undefined })).toBe(
      WITHHELD_LABEL_READ_FAILED,
    );
    expect(measure(answer({}), { queryLabel: LABEL_READ_FAILED, ceiling: undefined })).toBe(
      WITHHELD_LABEL_READ_FAILED,
    );
  });

  it('fails closed on a missing query label: an unlabeled answer is withheld, not admitted as public', () => {
    const opts = { queryLabel: undefined as unknown as Label, ceiling: undefined };
    expect(measure(answer({}), opts)).toBe(WITHHELD_LABEL_READ_FAILED);
    expect(measure(answer({}, alice), opts).status).toBe('admitted');
  });

  it('withholds a value that is not an answer object', () => {
    expect(measure(null, { queryLabel: PUBLIC, ceiling: undefined })).toBe(WITHHELD_LABEL_READ_FAILED);
  });

  it('refuses a missing or unreadable ceiling with ceiling_unavailable rather than running unbounded', () => {
    const call = (opts: unknown) => () => measure(answer({}), opts as never);
    expect(call({ queryLabel: PUBLIC })).toThrowError(IfcError);
    expect(call({ queryLabel: PUBLIC })).toThrowError(
      expect.objectContaining({ code: 'ceiling_unavailable' }),
    );
    expect(call({ queryLabel: PUBLIC, ceiling: null })).toThrowError(
      expect.objectContaining({ code: 'ceiling_unavailable' }),
    );
    expect(call(undefined)).toThrowError(expect.objectContaining({ code: 'ceiling_unavailable' }));
    expect(call({ queryLabel: PUBLIC })).toThrowErrorMatchingInlineSnapshot(
      `[IfcError: measure() was called without a \`ceiling\` key. Expected \`{ queryLabel, ceiling }\` where \`ceiling\` is undefined (none) or a list of clauses; read it with readCeiling() and refuse the call if it fails.]`,
    );
  });

  it('measures a retrieval row through the same function as a command answer [HC-162]', () => {
    const row = { text: 'a page', ifc: alice };
    expect(measure(row, { queryLabel: PUBLIC, ceiling: ['alice'] })).toMatchObject({
      status: 'admitted',
      labelSource: 'row',
    });
    expect(measure({ text: 'a page' }, { queryLabel: query, ceiling: [] })).toBe(WITHHELD_CEILING_EXCEEDED);
  });

  it("an unlabeled answer in a batch takes the join of every call's input label [HC-130]", () => {
    const calls: Label[] = [
      { confidentiality: ['alice'], integrity: [] },
      { confidentiality: ['bob'], integrity: [] },
    ];
    const batchQuery = joinAll(calls);
    const m = measure(answer({}), { queryLabel: batchQuery, ceiling: ['alice', 'bob'] });
    expect(m).toMatchObject({ labelSource: 'query', label: { confidentiality: ['alice', 'bob'] } });
    // The conservative choice: a call whose own input carried only alice is measured at alice and bob.
    expect(measure(answer({}), { queryLabel: batchQuery, ceiling: ['alice'] })).toBe(
      WITHHELD_CEILING_EXCEEDED,
    );
  });
});

describe('measure: what a withheld answer shows', () => {
  it('a withheld result holds none of the content and no reference to the answer [HC-170]', () => {
    const a = answer({ secret: 'the-content' }, alice);
    const m = measure(a, { queryLabel: PUBLIC, ceiling: [] });
    expect(Object.values(m)).not.toContain(a);
    expect(JSON.stringify(m)).not.toContain('the-content');
    expect(Object.isFrozen(m)).toBe(true);
    // Content smuggled into an unreadable label does not leak through the read failure either.
    const smuggled = measure(
      answer({}, { confidentiality: [{ x: 'the-content', n: Number.NaN }] } as never),
      {
        queryLabel: PUBLIC,
        ceiling: undefined,
      },
    );
    expect(JSON.stringify(smuggled)).toBe('{"status":"withheld","reasonCode":"cfc_label_read_failed"}');
  });

  it('a withheld result carries exactly its status and reasonCode [HC-171]', () => {
    const m = measure(answer({}, { bogus: true }), { queryLabel: PUBLIC, ceiling: [] });
    expect(Object.keys(m).sort()).toEqual(['reasonCode', 'status']);
    expect(m).toEqual({ status: 'withheld', reasonCode: 'cfc_label_read_failed' });
  });
});

const body = fc.jsonValue({ maxDepth: 3 });
const decision = (m: Measurement<unknown>) =>
  m.status === 'admitted' ? { status: m.status, labelSource: m.labelSource, label: m.label } : m;
const ifcField = fc.oneof(
  fc.constant(undefined),
  label,
  fc.constantFrom(null, 'x', { confidentiality: 1 }, { extra: [] }),
);

describe('measure: decisions never depend on content', () => {
  test.prop([ifcField, label, ceiling, body, body], { numRuns: fcRuns(500) })(
    'the same labels give the same decision whatever the body',
    (ifc, queryLabel, c, b1, b2) => {
      const m1 = measure(answer(b1, ifc), { queryLabel, ceiling: c });
      const m2 = measure(answer(b2, ifc), { queryLabel, ceiling: c });
      expect(decision(m1)).toEqual(decision(m2));
    },
  );

  test.prop([ifcField, label, ceiling, fc.string({ minLength: 6 }), body], { numRuns: fcRuns(500) })(
    'a sentinel in withheld content never appears in the result',
    (ifc, queryLabel, c, tail, rest) => {
      const sentinel = `SENTINEL-${tail}`;
      const a = { ...answer({ rest, s: sentinel }, ifc), code: sentinel, reason: sentinel };
      const m = measure(a, { queryLabel, ceiling: c });
      if (m.status === 'withheld') {
        expect(JSON.stringify(m)).not.toContain('SENTINEL-');
        expect([WITHHELD_CEILING_EXCEEDED, WITHHELD_LABEL_READ_FAILED]).toContain(m);
      } else {
        expect(m.answer).toBe(a);
      }
    },
  );
});
