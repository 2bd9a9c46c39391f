// The wire shapes are defined once, as zod schemas (src/wire.ts): the types are inferred from them
// and the JSON Schema is generated from them. These checks pin what a peer in another language reads
// in the JSON Schema, that it judges a value exactly as the parsers do, and the inferred types.

import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { Ajv2020 } from 'ajv/dist/2020';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { commandAnswer } from '../src/answer';
import {
  ANSWER_KINDS,
  type CommandAnswer,
  type ListParams,
  type ReceivedAnswer,
  type RunParams,
  type RunProgress,
} from '../src/index';
import {
  brokerProgressSchema,
  brokerRequestSchema,
  commandAnswerSchema,
  manifestRowSchema,
  parseRequest,
} from '../src/schema';

const ajv = new Ajv2020({ allErrors: true });
const validRequest = ajv.compile(brokerRequestSchema);
const validAnswer = ajv.compile(commandAnswerSchema);

type Branch = { properties: { op: { const: string } }; required: string[] };

describe('the generated JSON Schema', () => {
  it('lists the four ops, each with the fields it requires', () => {
    const branches = brokerRequestSchema.oneOf as Branch[];
    expect(branches.map((b) => [b.properties.op.const, b.required])).toEqual([
      ['hello', ['protocol', 'id', 'op']],
      ['list', ['protocol', 'id', 'op']],
      ['run', ['protocol', 'id', 'op', 'command', 'args']],
      ['cancel', ['protocol', 'id', 'op', 'target']],
    ]);
    expect(brokerRequestSchema.$id).toBe('https://harness.dev/schemas/loom-broker-2/request.json');
  });

  it('states the bounds of the request fields as the parser checks them', () => {
    const run = (brokerRequestSchema.oneOf as { properties: Record<string, unknown> }[])[2]?.properties;
    expect(run).toMatchObject({
      id: { type: 'string', minLength: 1, maxLength: 128 },
      command: { type: 'string', minLength: 1, maxLength: 256 },
      args: { type: 'object' },
      expectedVersion: { type: 'integer', minimum: 1 },
    });
  });

  it("states a manifest row's timeoutMs as a whole number of at least 1", () => {
    expect((manifestRowSchema.properties as Record<string, unknown>).timeoutMs).toEqual({
      type: 'integer',
      minimum: 1,
    });
  });

  it('states the fields of a progress line', () => {
    expect(brokerProgressSchema.required).toEqual(['protocol', 'id', 'progress']);
    expect(brokerProgressSchema.properties).toMatchObject({
      progress: { required: ['elapsedMs', 'outputBytes'] },
    });
  });

  it('leaves objects open, since every peer ignores fields it does not know', () => {
    expect(JSON.stringify(brokerRequestSchema)).not.toContain('additionalProperties');
    expect(JSON.stringify(commandAnswerSchema)).not.toContain('"additionalProperties":false');
  });

  it('lists one command answer per kind, each naming its kind and requiring its body', () => {
    const branches = commandAnswerSchema.oneOf as {
      properties: { kind: { const: string } };
      required: string[];
    }[];
    expect(branches.map((b) => b.properties.kind.const)).toEqual([...ANSWER_KINDS]);
    for (const b of branches)
      expect(b.required).toEqual(expect.arrayContaining(['ok', 'id', 'code', 'kind', 'body']));
    expect(commandAnswerSchema.$id).toBe('https://harness.dev/schemas/loom-broker-2/command-answer.json');
  });
});

// Values near a request: each field well-formed or not, present or not.
const json = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -2, max: 3 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
// Mostly within bounds; else at an edge (empty, one code point short of or past the cap, astral
// characters counting one each).
const text = (max: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: max - 1, maxLength: max + 1 }) },
    { weight: 1, arbitrary: fc.constantFrom('', '😀'.repeat(max), '😀'.repeat(max + 1)) },
  );
const field = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: json });
const requestish = fc.record(
  {
    protocol: field(fc.constantFrom('loom-broker/2', 'loom-broker/2', 'loom-broker/2', 'loom-broker/1')),
    id: field(text(128)),
    op: field(fc.constantFrom('hello', 'list', 'run', 'run', 'cancel', 'approve')),
    command: field(text(256)),
    args: field(fc.dictionary(fc.string({ maxLength: 3 }), json, { maxKeys: 3 })),
    target: field(text(128)),
    loomId: field(text(128)),
    expectedVersion: field(
      fc.oneof(fc.integer({ min: -1, max: 3 }), fc.double({ min: 0, max: 3, noNaN: true })),
    ),
    readOnly: field(fc.boolean()),
    jobId: field(text(256)),
    ifNoneMatch: field(text(128)),
    progress: field(fc.boolean()),
  },
  // The envelope is always there (its fields well-formed or not), so that many values are requests.
  { requiredKeys: ['protocol', 'id', 'op'] },
);

// A body of each kind, well-formed; the answers below carry one of these, one with a field replaced
// by any value, or any value at all.
const BODIES: Record<string, unknown>[] = [
  { status: 'ok', output: ['a', 'b'], stderr: '', exitCode: 0, durationMs: 12 },
  {
    status: 'exit_nonzero',
    message: 'x exited with code 1',
    exitCode: 1,
    signal: null,
    stdout: '',
    stderr: 'broken',
    timedOut: false,
    outputExceeded: false,
    durationMs: 3,
  },
  { message: 'a person must approve it', approval: { id: 'apr-1', expires_at: null, plan_hash: 'ab' } },
  { message: 'not granted' },
  { message: 'the arguments do not fit', errors: [{ path: '/a', message: 'must be string' }] },
  { status: 'cancelled', message: 'cancelled before it started' },
  { loom_id: 'loom-1', expected_version: 2, current_version: 3, guidance: 'inspect it' },
  { request_id: 'r1', guidance: 'recover it' },
  { loom_id: 'loom-1', message: 'no loom' },
];
const body = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...BODIES) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...BODIES), fc.nat(), json)
      .map(([b, i, v]) => ({ ...b, [Object.keys(b)[i % Object.keys(b).length] as string]: v })),
  },
  { weight: 1, arbitrary: json },
);
const answerish = fc.record(
  {
    ok: field(fc.boolean()),
    id: field(fc.string()),
    code: field(fc.constantFrom('ok', 'failed', 'refused', 'bad-args', 'not_found', 'weird')),
    reason: field(fc.constantFrom('exit_nonzero', 'approval_required', 'cancelled', 'not_in_scope')),
    mayHaveLanded: field(fc.boolean()),
    completed: field(fc.array(fc.string(), { maxLength: 2 })),
    kind: field(fc.constantFrom(...ANSWER_KINDS, 'weird')),
    body,
    ifc: field(fc.record({ confidentiality: field(fc.array(fc.string())) }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);

describe('one definition, two forms', () => {
  test.prop([requestish], { numRuns: fcRuns(2000) })(
    'the request JSON Schema admits exactly the lines parseRequest admits',
    (request) => {
      expect(validRequest(request)).toBe(parseRequest(request).ok);
    },
  );

  test.prop([answerish], { numRuns: fcRuns(1000) })(
    'the command answer JSON Schema admits exactly the answers its schema admits',
    (answer) => {
      expect(validAnswer(answer)).toBe(commandAnswer.safeParse(answer).success);
    },
  );
});

describe('the types inferred from the schemas', () => {
  it('a run states its optional fields as absent, never as undefined', () => {
    expectTypeOf<RunParams>().toEqualTypeOf<{
      command: string;
      args: Record<string, unknown>;
      loomId?: string;
      expectedVersion?: number;
      readOnly?: boolean;
      jobId?: string;
      session?: string;
      progress?: boolean;
    }>();
    expectTypeOf<ListParams>().toEqualTypeOf<{ jobId?: string; ifNoneMatch?: string }>();
  });

  it('a command answer carries a code of the protocol', () => {
    expectTypeOf<CommandAnswer['code']>().toEqualTypeOf<
      | 'ok'
      | 'forbidden'
      | 'refused'
      | 'bad-args'
      | 'unknown_command'
      | 'not_found'
      | 'version_conflict'
      | 'request_conflict'
      | 'failed'
      | 'internal'
    >();
    expectTypeOf<RunProgress>().branded.toEqualTypeOf<{
      elapsedMs: number;
      outputBytes: number;
      approval?: { id: string; approve: string; waitsUntil: string };
    }>();
  });

  it('an answer as a client reads it carries any code, every field but reason and ifc, and a kind with its body', () => {
    expectTypeOf<Omit<ReceivedAnswer, 'kind' | 'body'>>().branded.toEqualTypeOf<{
      ok: boolean;
      id: string;
      code: string;
      reason?: string;
      mayHaveLanded: boolean;
      completed: string[];
      ifc?: unknown;
    }>();
    expectTypeOf<ReceivedAnswer['kind']>().toEqualTypeOf<(typeof ANSWER_KINDS)[number]>();
    expectTypeOf<Extract<ReceivedAnswer, { kind: 'held' }>['body']>().branded.toEqualTypeOf<{
      message: string;
      approval?: { id: string; expires_at: string | null; plan_hash: string | null };
    }>();
    expectTypeOf<Extract<CommandAnswer, { kind: 'held' }>['reason']>().toEqualTypeOf<
      'approval_required' | 'approval_denied' | 'approval_expired'
    >();
  });
});
